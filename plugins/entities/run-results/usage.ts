/**
 * Per-user limits on stored run results: how many a user may keep and how many bytes they may take
 * (per tenant), so no account can fill the disk. One usage row per user (`run_result_usage`) holds
 * the count and bytes; every store and delete changes it in the same transaction, after locking the
 * user's row, so concurrent uploads of one user take turns and can never overshoot a limit.
 *
 * A user without a usage row (results stored before limits existed) gets one computed from their
 * rows the first time it is needed; rows of that time carry no size, so it is measured from the
 * stored payload, the same way whenever one of them is deleted.
 */
import { z } from 'zod';
import { conflict } from '../../../kernel/errors.ts';
import { usersTable } from '../../../kernel/identity/tables.ts';
import type { Store } from '../../../kernel/storage/contract.ts';
import { runResultsTable, runResultUsageTable, type RunResultRow } from '../tables.ts';

export const DEFAULT_MAX_PER_USER = 1000;
export const DEFAULT_MAX_BYTES_PER_USER = 256 * 1024 * 1024;

export const runResultsSchema = z
  .strictObject({
    /** Most run results one user may keep (per tenant); 0 means no limit. @default 1000 */
    maxPerUser: z.coerce.number().int().min(0).default(DEFAULT_MAX_PER_USER),
    /**
     * Most bytes of run results one user may keep (per tenant: label and payload as JSON, UTF-8);
     * 0 means no limit. @default 256 MiB
     */
    maxBytesPerUser: z.coerce
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .default(DEFAULT_MAX_BYTES_PER_USER),
  })
  .default({ maxPerUser: DEFAULT_MAX_PER_USER, maxBytesPerUser: DEFAULT_MAX_BYTES_PER_USER });

export type RunResultsConfig = z.output<typeof runResultsSchema>;

/** What a user has stored, and the limits that apply (null: no limit). */
export const runResultUsageRecord = z
  .object({
    userId: z.string(),
    count: z.number().int().describe('Run results the user keeps'),
    bytes: z.number().int().describe('Their size: labels and payloads as JSON, in UTF-8 bytes'),
    limits: z.object({
      count: z.number().int().nullable().describe('runResults.maxPerUser; null: no limit'),
      bytes: z.number().int().nullable().describe('runResults.maxBytesPerUser; null: no limit'),
    }),
  })
  .meta({ id: 'RunResultUsage' });
export type RunResultUsage = z.output<typeof runResultUsageRecord>;

const encoder = new TextEncoder();
const utf8Length = (text: string) => encoder.encode(text).length;

/** The bytes a run result takes: its label and its payload as JSON, in UTF-8. */
export function runResultSize(label: string, payload: Record<string, unknown>): number {
  return utf8Length(label) + utf8Length(JSON.stringify(payload));
}

/** A stored row's size: recorded at insert, measured for rows stored before sizes were kept. */
const sizeOfRow = (row: Pick<RunResultRow, 'sizeBytes' | 'label' | 'payload'>) =>
  row.sizeBytes ?? runResultSize(row.label, row.payload);

const PAGE = 100;

/** Count and bytes of a user's run results, from the usage row or else from the rows themselves. */
async function currentUsage(store: Store, userId: string) {
  const row = await store.table(runResultUsageTable).get(userId);
  if (row) return { count: row.count, bytes: row.bytes };
  let count = 0;
  let bytes = 0;
  let after: Partial<RunResultRow> | undefined;
  for (;;) {
    const page = await store.table(runResultsTable).find({
      where: { createdByUserId: userId },
      // The order `GET /run-results` lists in, so its index serves this too.
      orderBy: [
        ['createdAt', 'desc'],
        ['id', 'desc'],
      ],
      limit: PAGE,
      ...(after ? { after } : {}),
    });
    for (const result of page) bytes += sizeOfRow(result);
    count += page.length;
    if (page.length < PAGE) return { count, bytes };
    const last = page[page.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

const limitOf = (value: number) => (value === 0 ? null : value);

/** The usage report of `GET /admin/users/:id/run-results/usage` and `user show`. */
export async function runResultUsage(
  store: Store,
  userId: string,
  config: RunResultsConfig,
): Promise<RunResultUsage> {
  const { count, bytes } = await currentUsage(store, userId);
  return {
    userId,
    count,
    bytes,
    limits: { count: limitOf(config.maxPerUser), bytes: limitOf(config.maxBytesPerUser) },
  };
}

/**
 * The usage reports of several users (`GET /admin/run-results/usage`), in the order of `userIds`:
 * their usage rows in one read; a user without one has stored nothing, unless results stored
 * before limits existed are theirs, which one more read finds (and only then are they counted).
 */
export async function runResultUsages(
  store: Store,
  userIds: readonly string[],
  config: RunResultsConfig,
): Promise<RunResultUsage[]> {
  const rows = new Map(
    (await store.table(runResultUsageTable).getMany(userIds)).map((row) => [row.id, row]),
  );
  const missing = userIds.filter((id) => !rows.has(id));
  const older =
    missing.length > 0 &&
    (
      await store.table(runResultsTable).find({
        where: { createdByUserId: { in: missing } },
        limit: 1,
      })
    ).length > 0;
  const limits = { count: limitOf(config.maxPerUser), bytes: limitOf(config.maxBytesPerUser) };
  return Promise.all(
    userIds.map(async (userId) => {
      const row = rows.get(userId);
      const usage = row ?? (older ? await currentUsage(store, userId) : { count: 0, bytes: 0 });
      return { userId, count: usage.count, bytes: usage.bytes, limits };
    }),
  );
}

/**
 * Counts a new run result of `size` bytes against the caller's limits, inside the transaction that
 * stores it: 409 naming the limit when it would go over. The caller has locked the user's row.
 */
export async function reserveRunResult(
  tx: Store,
  userId: string,
  size: number,
  config: RunResultsConfig,
): Promise<void> {
  const { count, bytes } = await currentUsage(tx, userId);
  if (config.maxPerUser > 0 && count + 1 > config.maxPerUser)
    throw conflict(
      `run results: ${count} of ${config.maxPerUser} stored for this user ` +
        '(runResults.maxPerUser); delete some first.',
    );
  if (config.maxBytesPerUser > 0 && bytes + size > config.maxBytesPerUser)
    throw conflict(
      `run results: ${bytes} of ${config.maxBytesPerUser} bytes stored for this user and this ` +
        `one takes ${size} (runResults.maxBytesPerUser); delete some first.`,
    );
  await tx.table(runResultUsageTable).put({ id: userId, count: count + 1, bytes: bytes + size });
}

/**
 * Takes a deleted run result off its creator's usage, inside the deleting transaction; the caller
 * has locked the creator's row. Without a usage row there is nothing to change: it is computed
 * from the rows that remain when next needed.
 */
export async function releaseRunResult(tx: Store, row: RunResultRow): Promise<void> {
  if (!row.createdByUserId) return;
  const usage = await tx.table(runResultUsageTable).get(row.createdByUserId);
  if (!usage) return;
  await tx.table(runResultUsageTable).update(usage.id, {
    count: Math.max(0, usage.count - 1),
    bytes: Math.max(0, usage.bytes - sizeOfRow(row)),
  });
}

/** Locks the creator's row (when the account still exists) so usage changes take turns. */
export async function lockCreator(tx: Store, userId: string | null): Promise<void> {
  if (userId) await tx.table(usersTable).getForUpdate(userId);
}
