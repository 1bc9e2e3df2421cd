/**
 * `GET /notices/stream`: a Server-Sent Events feed of the caller's new notices on this instance.
 * Streams are kept in a registry keyed by tenant and user, so a fan-out message reaches exactly the
 * recipient's streams; each also remembers the hash of the token it was opened with, so it can be
 * ended when that token stops working (revocation.ts). The stream is a plain `ReadableStream`,
 * which works the same through `app.request()` and @hono/node-server; a client that goes away
 * cancels it and leaves the registry.
 */
import type { Clock } from '../../kernel/clock.ts';
import type { Hono } from 'hono';
import { serviceUnavailable } from '../../kernel/errors.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import type { NoticeFanout, NoticeMessage } from './fanout.ts';

/** @default 30 000 ms, the interval the desktop client expects */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/**
 * Chunks a stream may have queued before its client counts as stuck and is dropped: a reader that
 * never reads must not make the hub buffer notices forever.
 */
const MAX_QUEUED_CHUNKS = 256;

interface StreamHandle {
  /** The sha256 of the bearer token the stream was opened with. */
  tokenHash: string;
  send(text: string): void;
  /** Writes `: shutdown` and ends the stream. */
  shutdown(): void;
  /** Writes `: unauthorized` and ends the stream: its token no longer authenticates. */
  unauthorized(): void;
}

export interface StreamRegistry {
  /** Number of open streams (for tests and diagnostics). */
  size(): number;
  /** Ends every stream with `: shutdown` and refuses new ones. */
  shutdown(): void;
  isShutDown(): boolean;
  add(tenantId: string, userId: string, handle: StreamHandle): () => void;
  deliver(message: NoticeMessage): void;
  /** The token hashes of the open streams, by tenant. */
  tokens(): Map<string, Set<string>>;
  /** Ends the tenant's streams opened with any of these token hashes (`: unauthorized`); returns how many. */
  endTokens(tenantId: string, hashes: ReadonlySet<string>): number;
}

const keyOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`;

export function createStreamRegistry(): StreamRegistry {
  const streams = new Map<string, Set<StreamHandle>>();
  /** The tenant of each open stream, for the token checks. */
  const tenants = new Map<StreamHandle, string>();
  let shutDown = false;
  return {
    size: () => [...streams.values()].reduce((sum, set) => sum + set.size, 0),
    isShutDown: () => shutDown,
    shutdown() {
      shutDown = true;
      for (const set of [...streams.values()]) for (const handle of [...set]) handle.shutdown();
      streams.clear();
      tenants.clear();
    },
    add(tenantId, userId, handle) {
      const key = keyOf(tenantId, userId);
      let set = streams.get(key);
      if (!set) streams.set(key, (set = new Set()));
      set.add(handle);
      tenants.set(handle, tenantId);
      return () => {
        set.delete(handle);
        tenants.delete(handle);
        if (set.size === 0 && streams.get(key) === set) streams.delete(key);
      };
    },
    tokens() {
      const byTenant = new Map<string, Set<string>>();
      for (const [handle, tenantId] of tenants) {
        let hashes = byTenant.get(tenantId);
        if (!hashes) byTenant.set(tenantId, (hashes = new Set()));
        hashes.add(handle.tokenHash);
      }
      return byTenant;
    },
    endTokens(tenantId, hashes) {
      let ended = 0;
      for (const [handle, tenant] of [...tenants]) {
        if (tenant !== tenantId || !hashes.has(handle.tokenHash)) continue;
        handle.unauthorized();
        ended += 1;
      }
      return ended;
    },
    deliver(message) {
      const set = streams.get(keyOf(message.tenantId, message.recipientUserId));
      if (!set) return;
      // Only these fields leave the hub: tenant and recipient are implied by the connection.
      const frame = `data: ${JSON.stringify({ v: 1, type: message.type, noticeId: message.noticeId, unreadCount: message.unreadCount })}\n\n`;
      for (const handle of [...set]) handle.send(frame);
    },
  };
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

/** Opens one SSE body registered for the user; ends on cancel, on shutdown, or when the client is stuck. */
function openStream(
  registry: StreamRegistry,
  owner: { tenantId: string; userId: string; tokenHash: string; expiresAt: string | null },
  heartbeatMs: number,
  abort: AbortSignal,
  clock: Clock,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let release = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const end = () => {
        if (!open) return;
        open = false;
        clearInterval(timer);
        abort.removeEventListener('abort', end);
        unregister();
        try {
          controller.close();
        } catch {
          // Already cancelled by the client.
        }
      };
      const write = (text: string) => {
        if (!open) return;
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED_CHUNKS) return end();
        controller.enqueue(encoder.encode(text));
      };
      // A token that expires by itself (single sign-on) changes no row the token watch would
      // notice: each heartbeat checks its expiry.
      const expires = owner.expiresAt === null ? Infinity : Date.parse(owner.expiresAt);
      const timer = setInterval(() => {
        if (clock.now().getTime() < expires) return write(': heartbeat\n\n');
        write(': unauthorized\n\n');
        end();
      }, heartbeatMs);
      const unregister = registry.add(owner.tenantId, owner.userId, {
        tokenHash: owner.tokenHash,
        send: write,
        shutdown() {
          write(': shutdown\n\n');
          end();
        },
        unauthorized() {
          write(': unauthorized\n\n');
          end();
        },
      });
      release = end;
      abort.addEventListener('abort', end, { once: true });
      write(': connected\n\n');
    },
    cancel() {
      release();
    },
  });
}

/** Mounts `GET /notices/stream`. 503 while the fan-out cannot deliver (Redis subscriber not ready). */
export function streamRoutes(
  app: Hono<KernelEnv>,
  deps: { registry: StreamRegistry; fanout: NoticeFanout; heartbeatMs: number; clock: Clock },
): void {
  app.get('/notices/stream', (c) => {
    if (deps.registry.isShutDown() || !deps.fanout.ready()) throw serviceUnavailable();
    const body = openStream(
      deps.registry,
      {
        tenantId: c.get('tenant').id,
        userId: c.get('auth').user.id,
        tokenHash: c.get('auth').token.tokenHash,
        expiresAt: c.get('auth').token.expiresAt,
      },
      deps.heartbeatMs,
      c.req.raw.signal,
      deps.clock,
    );
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  });
}
