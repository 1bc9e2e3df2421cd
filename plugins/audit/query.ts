/**
 * Reading the log, newest first, for `GET /admin/audit`, `workspace-hub audit list` and `export`:
 * filters on actor, action, target and time, keyset pages on the time-ordered id. `since` is a
 * lower bound of the id and `until` (with the cursor) an upper one, so one range condition per
 * query suffices on every driver.
 */
import { z } from 'zod';
import { parseIsoTime } from '../../kernel/clock.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import {
  cursorQuery,
  encodeCursor,
  limitQuery,
  type KeysetPosition,
} from '../../kernel/http/paging.ts';
import type { Where } from '../../kernel/storage/contract.ts';
import { ID_MAX } from '../../kernel/http/params.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { idAfter, idAtOrAfter } from '../../kernel/time-id.ts';
import {
  changesPage,
  REVISION_ACTIONS,
  type HistoryKind,
  type RevisionAction,
} from '../entities/index.ts';
import { auditEventsTable, type AuditEventRow } from './tables.ts';
import { changeEvent } from './workspace.ts';

export const DEFAULT_LIMIT = 50;

const TIME_MESSAGE = 'must be an ISO 8601 date-time, e.g. 2026-01-02T03:04:05Z';

const time = z
  .string({ error: 'must be a single string' })
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = parseIsoTime(value);
    if (parsed === null) {
      ctx.addIssue({ code: 'custom', message: TIME_MESSAGE });
      return z.NEVER;
    }
    return parsed;
  });

const filterText = (max: number) =>
  z
    .string({ error: 'must be a single string' })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters')
    .optional();

/** The query of `GET /admin/audit`; each bad field is a 400 that names it. */
export const auditQuery = z.object({
  actorId: filterText(ID_MAX),
  action: filterText(64),
  targetId: filterText(255),
  since: time,
  until: time,
  cursor: cursorQuery('audit'),
  limit: limitQuery(DEFAULT_LIMIT),
});

export interface AuditFilter {
  actorId?: string | undefined;
  action?: string | undefined;
  targetId?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** Events older than this one (ids are time-ordered, so the id alone places it). */
  cursor?: Pick<KeysetPosition, 'id'> | undefined;
  limit: number;
  /**
   * Workspace changes before this time are past the log's retention (their revisions may be kept
   * longer for history): they are not shown.
   */
  keptSince?: string | undefined;
}

/**
 * What an `action` filter asks of the changes: nothing (no filter), one kind and action, or no
 * change at all (an action that is not `<kind>.<change>`, e.g. `user.created`).
 */
function changeAction(action: string | undefined) {
  if (action === undefined) return {};
  const dot = action.lastIndexOf('.');
  const verb = action.slice(dot + 1);
  if (dot <= 0 || !(REVISION_ACTIONS as readonly string[]).includes(verb)) return null;
  return { kind: action.slice(0, dot) as HistoryKind, action: verb as RevisionAction };
}

const larger = (a: string | undefined, b: string | undefined) =>
  a === undefined ? b : b === undefined || a > b ? a : b;
const smaller = (a: string | undefined, b: string | undefined) =>
  a === undefined ? b : b === undefined || a < b ? a : b;

/**
 * One page of events and the cursor of the next one, when there is one. Ids are time-ordered in
 * both sources (the log's own rows and the workspace changes' revisions), so newest first is
 * the ids' order, and a page is the merge of the first `limit + 1` of each.
 */
export async function auditPage(
  store: Store,
  filter: AuditFilter,
): Promise<{ rows: AuditEventRow[]; nextCursor?: string }> {
  const from = filter.since === undefined ? undefined : idAtOrAfter(filter.since);
  const below = smaller(
    filter.until === undefined ? undefined : idAfter(filter.until),
    filter.cursor?.id,
  );
  const where: Where<AuditEventRow> = {};
  if (filter.actorId !== undefined) where.actorId = filter.actorId;
  if (filter.action !== undefined) where.action = filter.action;
  if (filter.targetId !== undefined) where.targetId = filter.targetId;
  if (from !== undefined) where.id = { gte: from };
  const change = changeAction(filter.action);
  const [own, changes] = await Promise.all([
    store.table(auditEventsTable).find({
      where,
      orderBy: [['id', 'desc']],
      limit: filter.limit + 1,
      ...(below !== undefined ? { after: { id: below } } : {}),
    }),
    change === null
      ? []
      : changesPage(store, {
          ...change,
          actorId: filter.actorId,
          recordId: filter.targetId,
          from: larger(from, filter.keptSince && idAtOrAfter(filter.keptSince)),
          below,
          limit: filter.limit + 1,
        }),
  ]);
  const rows = [...own, ...changes.map(changeEvent)].sort((a, b) => (a.id < b.id ? 1 : -1));
  await nameActors(store, rows);
  if (rows.length <= filter.limit) return { rows };
  const page = rows.slice(0, filter.limit);
  const last = page[page.length - 1]!;
  return { rows: page, nextCursor: encodeCursor({ createdAt: last.at, id: last.id }) };
}

/** Changes recorded without the actor's name (made on another's behalf): named from the users. */
async function nameActors(store: Store, rows: AuditEventRow[]): Promise<void> {
  const missing = [
    ...new Set(rows.filter((row) => row.actorId && row.actorName === null).map((r) => r.actorId!)),
  ];
  if (missing.length === 0) return;
  const users = new Map(
    (await store.table(usersTable).getMany(missing)).map((user) => [user.id, user.name]),
  );
  for (const row of rows)
    if (row.actorId && row.actorName === null) row.actorName = users.get(row.actorId) ?? null;
}
