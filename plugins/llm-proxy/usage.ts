/**
 * Metering: the monthly cap check before a step and the atomic count after it.
 *
 * Totals only ever change through `increment` (an atomic upsert), so concurrent steps add up
 * exactly. The cap needs more: if twenty new turns all read "under the cap" before any of them is
 * counted, all twenty run. So a capped user's new turn first takes a short lease on the user's
 * month row (a locked read-then-write); the next new turn waits until the running one is counted.
 * At most one step can therefore cross the cap. Tool continuations are never refused and take no
 * lease: the spec lets a started turn finish.
 */
import type { Clock } from '../../kernel/clock.ts';
import { HttpError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { llmUsageLogTable, llmUsageTable, periodOf, usageId, type LlmUsageRow } from './tables.ts';

export const QUOTA_MESSAGE =
  'Monthly LLM token limit reached. Try again next month or contact your administrator.';
const BUSY_MESSAGE =
  'Another LLM request of yours is still running; try again when it has finished.';

export interface StepUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface StepRecord {
  user: UserRow;
  tokenId: string | null;
  model: string;
  provider: string;
  usage: StepUsage;
  isNewTurn: boolean;
  hadToolCalls: boolean;
  messageCount: number;
  streamed: boolean;
}

/** A step allowed to run; `release` must be called once, after the step is counted or abandoned. */
export interface Admission {
  release(): Promise<void>;
}

const NOTHING_TO_RELEASE: Admission = { release: async () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function emptyRow(userId: string, period: string, now: string): LlmUsageRow {
  return {
    id: usageId(userId, period),
    userId,
    period,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    steps: 0,
    turnLeaseUntil: null,
    updatedAt: now,
  };
}

/** The user's total for the current month (0 when nothing was used yet). */
export async function monthTotal(
  store: Store,
  clock: Clock,
  userId: string,
): Promise<{ period: string; totalTokens: number }> {
  const period = periodOf(clock.now());
  const row = await store.table(llmUsageTable).get(usageId(userId, period));
  return { period, totalTokens: row?.totalTokens ?? 0 };
}

/**
 * Decides whether a step may run: 402 for a new turn once the month's total has reached the cap.
 * `leaseMs` bounds both the lease and the wait for another running turn (then 429).
 */
export async function admitStep(
  store: Store,
  clock: Clock,
  user: UserRow,
  options: { isNewTurn: boolean; leaseMs: number; signal: AbortSignal },
): Promise<Admission> {
  const limit = user.llmMonthlyTokenLimit;
  if (!options.isNewTurn || limit === null) return NOTHING_TO_RELEASE;
  const table = store.table(llmUsageTable);
  const period = periodOf(clock.now());
  const id = usageId(user.id, period);
  // Make sure the row exists, so the locked read below always has something to lock.
  await table.increment(id, { steps: 0 }, emptyRow(user.id, period, clock.iso()));
  const deadline = Date.now() + options.leaseMs;
  for (;;) {
    const outcome = await store.transaction(async (tx) => {
      const row = await tx.table(llmUsageTable).getForUpdate(id);
      if (!row || row.totalTokens >= limit) return 'over' as const;
      const now = clock.now();
      if (row.turnLeaseUntil && Date.parse(row.turnLeaseUntil) > now.getTime())
        return 'busy' as const;
      await tx
        .table(llmUsageTable)
        .update(id, { turnLeaseUntil: new Date(now.getTime() + options.leaseMs).toISOString() });
      return 'admitted' as const;
    });
    if (outcome === 'over') throw new HttpError(402, QUOTA_MESSAGE);
    if (outcome === 'admitted')
      return { release: () => table.update(id, { turnLeaseUntil: null }).then(() => undefined) };
    if (options.signal.aborted) throw new HttpError(400, 'The request was cancelled.');
    if (Date.now() > deadline) throw new HttpError(429, BUSY_MESSAGE);
    // Jitter spreads waiting turns out so they do not all retry on the same tick.
    await sleep(10 + Math.random() * 30);
  }
}

/**
 * Counts a finished step: the month total (an atomic upsert) and one log row without message
 * content, in one transaction so a step is either fully counted and logged or not at all.
 */
export async function recordStep(store: Store, clock: Clock, record: StepRecord): Promise<void> {
  const period = periodOf(clock.now());
  const now = clock.iso();
  const { promptTokens, completionTokens, totalTokens } = record.usage;
  // Both are writes with no read before them; the id is generated outside so a retried
  // transaction inserts the same log row.
  const logId = newId();
  await store.transaction(async (tx) => {
    await tx
      .table(llmUsageTable)
      .increment(
        usageId(record.user.id, period),
        { promptTokens, completionTokens, totalTokens, steps: 1 },
        emptyRow(record.user.id, period, now),
      );
    await tx.table(llmUsageLogTable).insert({
      id: logId,
      userId: record.user.id,
      tokenId: record.tokenId,
      period,
      model: record.model,
      provider: record.provider,
      promptTokens,
      completionTokens,
      totalTokens,
      isNewTurn: record.isNewTurn,
      hadToolCalls: record.hadToolCalls,
      messageCount: record.messageCount,
      streamed: record.streamed,
      createdAt: now,
    });
  });
}
