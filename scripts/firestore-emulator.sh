#!/usr/bin/env bash
# Starts or stops the official Firestore emulator for the test suites.
#   scripts/firestore-emulator.sh start [host:port]   (default 127.0.0.1:8790; waits until ready)
#   scripts/firestore-emulator.sh stop
# State lives in ${FIRESTORE_EMULATOR_DIR:-/tmp/workspace-hub-firestore}: pid file, log, gcloud config.
set -euo pipefail
dir="${FIRESTORE_EMULATOR_DIR:-/tmp/workspace-hub-firestore}"
case "${1:-}" in
  start)
    command -v gcloud >/dev/null || { echo "gcloud is not installed: the Firestore emulator is required" >&2; exit 1; }
    addr="${2:-127.0.0.1:8790}"
    mkdir -p "$dir/config"
    CLOUDSDK_CORE_DISABLE_PROMPTS=1 CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=true \
      CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=true CLOUDSDK_CONFIG="$dir/config" \
      setsid gcloud emulators firestore start --host-port="$addr" >"$dir/log" 2>&1 &
    echo $! >"$dir/pid"
    for _ in $(seq 1 120); do
      grep -q "Dev App Server is now running" "$dir/log" && { echo "Firestore emulator on $addr"; exit 0; }
      kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
      sleep 0.5
    done
    cat "$dir/log" >&2; echo "The Firestore emulator did not start" >&2; exit 1 ;;
  stop)
    # setsid made the emulator its own process group: gcloud's wrapper and the Java process end together.
    [ -f "$dir/pid" ] && kill -- "-$(cat "$dir/pid")" 2>/dev/null || true
    rm -f "$dir/pid" ;;
  *) echo "usage: $0 start [host:port] | stop" >&2; exit 2 ;;
esac
