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

/**
 * `probe(payload)` sends `NOTIFY CHANGES_CHANNEL, payload` through the pool the hub writes with.
 */
export function watchNotifications(
  newClient: () => pg.Client,
  stamps: ChangeStamps,
  probe: (payload: string) => Promise<unknown>,
): OthersWatch {
  // One number per connection attempt: a timer or event of an older attempt does nothing.
  let generation = 0;
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A fence or probe in flight, answered true when it comes back, false when the connection drops.
  const awaited = new Map<string, (ok: boolean) => void>();
  // A fence did not come back in time: lookups read afresh until one does.
  let suspect = false;
  // Fences sent on a connection and not yet answered (they stay on the wire after their lookups
  // gave up waiting, until answered or until the connection's query_timeout ends it).
  const unanswered = new WeakMap<pg.Client, number>();

  /**
   * Ends a listening connection. pg's `end()` in pipeline mode waits for every answer still due,
   * so a connection with fences unanswered (gone silent, say) is destroyed at once instead.
   */
  const endClient = (old: pg.Client): Promise<void> => {
    if ((unanswered.get(old) ?? 0) === 0) return old.end().catch(() => undefined);
    // pg has no public destroy; its connection's socket is `connection.stream`.
    (
      old as unknown as { connection?: { stream?: { destroy(): void } } }
    ).connection?.stream?.destroy();
    return Promise.resolve();
  };

  const schedule = (attempt: number, fn: () => void, ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      if (attempt === generation && !closed) fn();
    }, ms);
    unref(timer);
  };

  const drop = (attempt: number) => {
    if (attempt !== generation) return;
    generation++;
    listening = false;
    // Nothing still in flight can prove anything: it may arrive on the next connection, which
    // did not hear what was committed before it listened.
    for (const answer of awaited.values()) answer(false);
    awaited.clear();
    const old = client;
    client = undefined;
    if (old) {
      old.removeAllListeners('notification');
      void endClient(old);
    }
    if (!closed) schedule(generation, () => void connect(), RETRY_MS);
  };

  /**
   * Whether a NOTIFY sent by `send` (through the pool, unless told) comes back on the listening
   * connection in time.
   */
  async function heard(
    timeoutMs = PROBE_TIMEOUT_MS,
    send: (payload: string) => Promise<unknown> = probe,
  ): Promise<boolean> {
    const payload = `${PROBE_PREFIX}${randomUUID()}`;
    const arrived = new Promise<boolean>((resolve) => {
      const deadline = setTimeout(() => resolve(false), timeoutMs);
      unref(deadline);
      awaited.set(payload, (ok) => {
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
      awaited.delete(payload);
    }
  }

  const check = async (attempt: number) => {
    if (await heard()) schedule(attempt, () => void check(attempt), PROBE_INTERVAL_MS);
    else drop(attempt);
  };

  async function connect() {
    if (closed) return;
    const attempt = generation;
    const next = newClient();
    client = next;
    // A listener must exist before anything can fail, or an error event would end the process.
    next.on('error', () => drop(attempt));
    next.on('end', () => drop(attempt));
    next.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL || !message.payload) return;
      if (message.payload.startsWith(PROBE_PREFIX)) awaited.get(message.payload)?.(true);
      else stamps.bump([message.payload]);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      drop(attempt);
      return;
    }
    if (attempt !== generation || closed) return;
    if (!(await heard())) {
      drop(attempt);
      return;
    }
    if (attempt !== generation || closed) return;
    // Whatever was written while nobody listened is unknown: every stamp moves.
    stamps.bumpAll();
    listening = true;
    schedule(attempt, () => void check(attempt), PROBE_INTERVAL_MS);
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
  const fence = batched(
    async () => {
      const on = client;
      if (!listening || !on) return false;
      const attempt = generation;
      const sent = unanswered.get(on) ?? 0;
      // Earlier fences went unanswered past their wait and are still due: send no more into it.
      if (sent >= FENCES_IN_FLIGHT) {
        suspect = true;
        return false;
      }
      unanswered.set(on, sent + 1);
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const answered = await Promise.race([
        on
          .query('')
          .then(
            () => true,
            () => false,
          )
          .finally(() => unanswered.set(on, (unanswered.get(on) ?? 1) - 1)),
        new Promise<boolean>((resolve) => {
          deadline = setTimeout(() => resolve(false), FENCE_TIMEOUT_MS);
          unref(deadline);
        }),
      ]);
      clearTimeout(deadline);
      const ok = answered && listening && attempt === generation;
      suspect = !ok;
      return ok;
    },
    FENCES_IN_FLIGHT,
    'turn',
  );

  let started = false;
  return {
    hearing() {
      if (!started) {
        started = true;
        void connect();
      }
      return listening;
    },
    current(arrival) {
      if (!listening) return false;
      if (suspect) {
        // Do not make lookups wait on a listener that fell behind; one fence finds out when it
        // hears again (and the probe drops a connection that stays silent).
        void fence();
        return false;
      }
      return fence(arrival);
    },
    async close() {
      closed = true;
      listening = false;
      generation++;
      if (timer) clearTimeout(timer);
      const old = client;
      client = undefined;
      if (old) await endClient(old);
    },
  };
}
