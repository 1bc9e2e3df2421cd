/**
 * Probes for orchestrators and load balancers. `GET /healthz` (liveness) answers from memory and
 * touches nothing. `GET /readyz` (readiness) checks the database, Redis when configured, and that
 * the schema is current, each under a short timeout so a stalled dependency gives 503 rather than a
 * hanging probe; while a dependency's circuit breaker is open (kernel/breaker.ts) it says so at
 * once, without asking it. It is 503 as soon as shutdown begins, so a balancer stops sending new
 * requests while the ones in flight finish. Both are public, never throttled and never counted as
 * failures.
 */
import type { Context } from 'hono';
import type { Circuit } from '../breaker.ts';
import { errorBody } from '../errors.ts';
import type { KernelEnv } from '../plugin.ts';
import type { Migration, StorageDriver } from '../storage/contract.ts';
import type { ThrottleStore } from '../throttle/contract.ts';

/** How long one readiness check may take before it counts as failed. */
export const READY_CHECK_TIMEOUT_MS = 2_000;

export interface ProbeDeps {
  driver: () => StorageDriver;
  throttle: () => ThrottleStore;
  redisConfigured: () => boolean;
  migrations: readonly Migration[];
  shuttingDown: () => boolean;
  timeoutMs?: number;
}

type CheckResult = 'ok' | 'not configured' | string;

/** A check's value while its dependency's circuit breaker is open. */
export const CIRCUIT_OPEN = 'circuit open';
/** The schema check's value when the database cannot be asked. */
const NOT_CHECKED = 'not checked';

/**
 * Runs `check` and reports `ok` or a short reason; never throws, never waits past the timeout. The
 * answer is public, so a driver's error text (hosts, ports) goes to the log, not to the client.
 */
async function bounded(
  name: string,
  check: () => Promise<string | void>,
  timeoutMs: number,
  c: Context<KernelEnv>,
): Promise<CheckResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  const run = check().then(
    (problem) => problem ?? 'ok',
    (error: unknown) => {
      c.get('log').warn('Readiness check failed', {
        check: name,
        error: error instanceof Error ? error.message : String(error),
      });
      return 'unreachable';
    },
  );
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthzHandler() {
  return (c: Context<KernelEnv>) => c.json({ status: 'ok' });
}

export function readyzHandler(deps: ProbeDeps) {
  const timeoutMs = deps.timeoutMs ?? READY_CHECK_TIMEOUT_MS;
  return async (c: Context<KernelEnv>) => {
    c.header('Cache-Control', 'no-store');
    if (deps.shuttingDown()) {
      return c.json(
        errorBody('Not ready: the hub is shutting down.', 'not_ready', {
          checks: { shutdown: 'in progress' },
        }),
        503,
      );
    }
    const driver = deps.driver();
    const throttle = deps.throttle();
    // A dependency whose circuit breaker is open is not asked: its probe already is, several
    // times a second, and the answer must not wait.
    const ask = (
      name: string,
      circuit: Circuit | undefined,
      check: () => Promise<string | void>,
    ) => (circuit?.isOpen() ? CIRCUIT_OPEN : bounded(name, check, timeoutMs, c));
    const [database, schema, redis] = await Promise.all([
      ask('database', driver.circuit, () => driver.ping()),
      driver.circuit?.isOpen()
        ? NOT_CHECKED
        : bounded(
            'schema',
            async () => {
              const applied = new Set(await driver.appliedMigrations());
              const pending = deps.migrations.filter((m) => !applied.has(m.id)).length;
              return pending === 0
                ? undefined
                : `${pending} pending migration(s); run "workspace-hub migrate"`;
            },
            timeoutMs,
            c,
          ),
      deps.redisConfigured()
        ? ask('redis', throttle.circuit, () => throttle.ping())
        : 'not configured',
    ]);
    const checks = { database, schema, redis };
    const failing = Object.entries(checks)
      .filter(([, value]) => value !== 'ok' && value !== 'not configured' && value !== NOT_CHECKED)
      .map(([name]) => name);
    const open = Object.entries(checks)
      .filter(([, value]) => value === CIRCUIT_OPEN)
      .map(([name]) => name);
    if (failing.length > 0) {
      const circuits = open.length > 0 ? ` (circuit open: ${open.join(', ')})` : '';
      return c.json(
        errorBody(`Not ready: ${failing.join(', ')} failing${circuits}.`, 'not_ready', { checks }),
        503,
      );
    }
    return c.json({ status: 'ready', checks });
  };
}
