/**
 * Other processes' writes on PostgreSQL: every table of the hub carries a statement trigger that
 * NOTIFYs its name on CHANGES_CHANNEL (dialects/postgres.ts installs it), delivered when the writing transaction commits.
 * One dedicated connection per hub LISTENs and bumps the table's stamp.
 *
 * The connection is trusted only while it is proven to hear: before it counts as listening, and
 * then every few seconds, a NOTIFY sent through the pool (as the hub's writes are) must come back
 * on it. That catches a connection that died silently (half-open TCP) and a pooler in transaction
 * mode, where LISTEN succeeds but nothing is ever delivered. While it is not proven — before it
 * first connects, after it dropped, while a probe goes unanswered — `current()` is false and
 * caches stand aside, since notifications sent meanwhile may be lost. When it is proven again
 * every stamp moves (`bumpAll`), so nothing cached before the gap is served after it.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ChangeStamps } from '../changes.ts';
import type { OthersWatch } from './dialect.ts';
import { batched } from '../batched.ts';

/** How often the listening connection proves it hears, and how long a probe may take. */
const PROBE_INTERVAL_MS = 5_000;
/** The channel on which PostgreSQL tells every hub process which table a statement wrote. */
export const CHANGES_CHANNEL = 'workspace_hub_changes';

export const PROBE_TIMEOUT_MS = 2_000;
/** How long a lookup waits for its fence before it reads from the database instead. */
const FENCE_TIMEOUT_MS = 500;
/**
 * Fences sent and not yet answered, at most. The listening connection pipelines them, so a batch
 * of lookups need not wait for the answer of a fence sent before it arrived (which cannot prove
 * it) before sending its own; the event loop otherwise idled through that wait. A fence that
 * stays unanswered ends the connection (the client's `query_timeout`, connect.ts); until then no
 * more than this many are on the wire, also after their lookups stopped waiting for them.
 */
const FENCES_IN_FLIGHT = 4;
/** Pause before connecting again after a failure. */
const RETRY_MS = 1_000;
/** Probe payloads; table names never hold a colon, so they are never taken for a table. */
const PROBE_PREFIX = 'probe:';

const unref = (timer: ReturnType<typeof setTimeout>) => (timer as { unref?: () => void }).unref?.();

/** One hub's listening connection and what it is waiting for. */
interface Listener {
  readonly newClient: () => pg.Client;
  readonly stamps: ChangeStamps;
  /** Sends `NOTIFY CHANGES_CHANNEL, payload` through the pool the hub writes with. */
  readonly probe: (payload: string) => Promise<unknown>;
  /** One number per connection attempt: a timer or event of an older attempt does nothing. */
  generation: number;
  client: pg.Client | undefined;
  listening: boolean;
  closed: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** A fence or probe in flight, answered true when it comes back, false when the connection drops. */
  readonly awaited: Map<string, (ok: boolean) => void>;
  /** A fence did not come back in time: lookups read afresh until one does. */
  suspect: boolean;
  /**
   * Fences sent on a connection and not yet answered (they stay on the wire after their lookups
   * gave up waiting, until answered or until the connection's query_timeout ends it).
   */
  readonly unanswered: WeakMap<pg.Client, number>;
}

/**
 * `probe(payload)` sends `NOTIFY CHANGES_CHANNEL, payload` through the pool the hub writes with.
 */
export function watchNotifications(
  newClient: () => pg.Client,
  stamps: ChangeStamps,
  probe: (payload: string) => Promise<unknown>,
): OthersWatch {
  const l: Listener = {
    newClient,
    stamps,
    probe,
    generation: 0,
    client: undefined,
    listening: false,
    closed: false,
    timer: undefined,
    awaited: new Map(),
    suspect: false,
    unanswered: new WeakMap(),
  };
  const fence = batched(() => sendFence(l), FENCES_IN_FLIGHT, 'turn');

  let started = false;
  return {
    hearing() {
      if (!started) {
        started = true;
        void connect(l);
      }
      return l.listening;
    },
    current(arrival) {
      if (!l.listening) return false;
      if (l.suspect) {
        // Do not make lookups wait on a listener that fell behind; one fence finds out when it
        // hears again (and the probe drops a connection that stays silent).
        void fence();
        return false;
      }
      return fence(arrival);
    },
    async close() {
      l.closed = true;
      l.listening = false;
      l.generation++;
      if (l.timer) clearTimeout(l.timer);
      const old = l.client;
      l.client = undefined;
      if (old) await endClient(l, old);
    },
  };
}

/**
 * Ends a listening connection. pg's `end()` in pipeline mode waits for every answer still due,
 * so a connection with fences unanswered (gone silent, say) is destroyed at once instead.
 */
function endClient(l: Listener, old: pg.Client): Promise<void> {
  if ((l.unanswered.get(old) ?? 0) === 0) return old.end().catch(() => undefined);
  // pg has no public destroy; its connection's socket is `connection.stream`.
  (
    old as unknown as { connection?: { stream?: { destroy(): void } } }
  ).connection?.stream?.destroy();
  return Promise.resolve();
}

function schedule(l: Listener, attempt: number, fn: () => void, ms: number): void {
  if (l.timer) clearTimeout(l.timer);
  l.timer = setTimeout(() => {
    if (attempt === l.generation && !l.closed) fn();
  }, ms);
  unref(l.timer);
}

function drop(l: Listener, attempt: number): void {
  if (attempt !== l.generation) return;
  l.generation++;
  l.listening = false;
  // Nothing still in flight can prove anything: it may arrive on the next connection, which
  // did not hear what was committed before it listened.
  for (const answer of l.awaited.values()) answer(false);
  l.awaited.clear();
  const old = l.client;
  l.client = undefined;
  if (old) {
    old.removeAllListeners('notification');
    void endClient(l, old);
  }
  if (!l.closed) schedule(l, l.generation, () => void connect(l), RETRY_MS);
}

/**
 * Whether a NOTIFY sent by `send` (through the pool, unless told) comes back on the listening
 * connection in time.
 */
async function heard(
  l: Listener,
  timeoutMs = PROBE_TIMEOUT_MS,
  send: (payload: string) => Promise<unknown> = l.probe,
): Promise<boolean> {
  const payload = `${PROBE_PREFIX}${randomUUID()}`;
  const arrived = new Promise<boolean>((resolve) => {
    const deadline = setTimeout(() => resolve(false), timeoutMs);
    unref(deadline);
    l.awaited.set(payload, (ok) => {
      clearTimeout(deadline);
      resolve(ok);
    });
  });
  try {
    const sent = await Promise.race([
      send(payload).then(
        () => true,
        () => false,
      ),
      arrived.then(() => true),
    ]);
    return sent && (await arrived);
  } finally {
    l.awaited.delete(payload);
  }
}

async function check(l: Listener, attempt: number): Promise<void> {
  if (await heard(l)) schedule(l, attempt, () => void check(l, attempt), PROBE_INTERVAL_MS);
  else drop(l, attempt);
}

async function connect(l: Listener): Promise<void> {
  if (l.closed) return;
  const attempt = l.generation;
  const next = l.newClient();
  l.client = next;
  // A listener must exist before anything can fail, or an error event would end the process.
  next.on('error', () => drop(l, attempt));
  next.on('end', () => drop(l, attempt));
  next.on('notification', (message) => {
    if (message.channel !== CHANGES_CHANNEL || !message.payload) return;
    if (message.payload.startsWith(PROBE_PREFIX)) l.awaited.get(message.payload)?.(true);
    else l.stamps.bump([message.payload]);
  });
  try {
    await next.connect();
    await next.query(`LISTEN ${CHANGES_CHANNEL}`);
  } catch {
    drop(l, attempt);
    return;
  }
  if (attempt !== l.generation || l.closed) return;
  if (!(await heard(l))) {
    drop(l, attempt);
    return;
  }
  if (attempt !== l.generation || l.closed) return;
  // Whatever was written while nobody listened is unknown: every stamp moves.
  l.stamps.bumpAll();
  l.listening = true;
  schedule(l, attempt, () => void check(l, attempt), PROBE_INTERVAL_MS);
}

/**
 * The fence: any statement on the listening connection, sent after the lookups it answers
 * arrived. A writer's commit signals every listening backend (SIGUSR1) before the writer hears
 * its commit acknowledged, so before the listening backend can read this statement the signal
 * has been taken, and before its ReadyForQuery it sends every notification committed so far
 * (in commit order, which its notification queue keeps). They reach us ahead of the statement's
 * answer, on the same connection. The statement is an empty query: the backend answers it
 * without parsing, planning or running anything (a round trip about half as long as that of
 * `SELECT 1`, which measurably raised the read rate of closed-loop clients), and the
 * notifications still go out before its ReadyForQuery, whatever the command was. So once it is
 * answered, every change acknowledged before it was sent has moved its stamp — with no NOTIFY of
 * its own, which would queue behind the writers' commits for the lock PostgreSQL takes to order
 * notifications.
 */
async function sendFence(l: Listener): Promise<boolean> {
  const on = l.client;
  if (!l.listening || !on) return false;
  const attempt = l.generation;
  const sent = l.unanswered.get(on) ?? 0;
  // Earlier fences went unanswered past their wait and are still due: send no more into it.
  if (sent >= FENCES_IN_FLIGHT) {
    l.suspect = true;
    return false;
  }
  l.unanswered.set(on, sent + 1);
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const answered = await Promise.race([
    on
      .query('')
      .then(
        () => true,
        () => false,
      )
      .finally(() => l.unanswered.set(on, (l.unanswered.get(on) ?? 1) - 1)),
    new Promise<boolean>((resolve) => {
      deadline = setTimeout(() => resolve(false), FENCE_TIMEOUT_MS);
      unref(deadline);
    }),
  ]);
  clearTimeout(deadline);
  const ok = answered && l.listening && attempt === l.generation;
  l.suspect = !ok;
  return ok;
}
