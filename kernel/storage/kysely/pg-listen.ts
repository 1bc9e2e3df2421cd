/**
 * Other processes' writes on PostgreSQL: every table carries a statement trigger that NOTIFYs its
 * name on CHANGES_CHANNEL (schema.ts), delivered when the writing transaction commits. One
 * dedicated connection per hub LISTENs and bumps the table's stamp.
 *
 * While that connection is not listening — before it first connects, after it dropped, while a
 * health check goes unanswered — `current()` is false and caches stand aside, since notifications
 * sent meanwhile are lost. When it listens again every stamp moves (`bumpAll`), so nothing cached
 * before the gap is served after it.
 */
import type pg from 'pg';
import type { ChangeStamps } from '../changes.ts';
import type { OthersWatch } from './dialect.ts';
import { CHANGES_CHANNEL } from './schema.ts';

/** How often the listening connection proves it is alive, and how long it may take to answer. */
const HEALTH_INTERVAL_MS = 5_000;
const HEALTH_TIMEOUT_MS = 2_000;
/** Pause before connecting again after a failure. */
const RETRY_MS = 1_000;

export function watchNotifications(newClient: () => pg.Client, stamps: ChangeStamps): OthersWatch {
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const later = (fn: () => void, ms: number) => {
    timer = setTimeout(fn, ms);
    // Never keeps a process alive by itself.
    (timer as { unref?: () => void }).unref?.();
  };

  const drop = () => {
    listening = false;
    const old = client;
    client = undefined;
    if (old) {
      old.removeAllListeners('notification');
      old.end().catch(() => undefined);
    }
    if (!closed) later(connect, RETRY_MS);
  };

  const check = () => {
    const current = client;
    if (!current || closed) return;
    let answered = false;
    const deadline = setTimeout(() => {
      if (!answered && client === current) drop();
    }, HEALTH_TIMEOUT_MS);
    (deadline as { unref?: () => void }).unref?.();
    current.query('SELECT 1').then(
      () => {
        answered = true;
        clearTimeout(deadline);
        if (client === current && !closed) later(check, HEALTH_INTERVAL_MS);
      },
      () => {
        answered = true;
        clearTimeout(deadline);
        if (client === current) drop();
      },
    );
  };

  async function connect() {
    if (closed) return;
    const next = newClient();
    client = next;
    // A listener must exist before anything can fail, or an error event would end the process.
    next.on('error', () => {
      if (client === next) drop();
    });
    next.on('end', () => {
      if (client === next) drop();
    });
    next.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL && message.payload) stamps.bump([message.payload]);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      if (client === next) drop();
      return;
    }
    if (client !== next || closed) return;
    // Whatever was written while nobody listened is unknown: every stamp moves.
    stamps.bumpAll();
    listening = true;
    later(check, HEALTH_INTERVAL_MS);
  }

  let started = false;
  return {
    current() {
      if (!started) {
        started = true;
        void connect();
      }
      return listening;
    },
    async close() {
      closed = true;
      listening = false;
      if (timer) clearTimeout(timer);
      const old = client;
      client = undefined;
      await old?.end().catch(() => undefined);
    },
  };
}
