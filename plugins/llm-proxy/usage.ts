/**
 * Metering: the monthly cap check before a step and the atomic count after it.
 *
 * Totals only ever change through `increment` (an atomic upsert), so concurrent steps add up
 * exactly. The cap needs more: if twenty steps all read "under the cap" before any of them is
 * counted, all twenty run. So every step of a capped user first takes a short lease on the user's
 * month row (a locked read-then-write); the next step waits until the running one is counted. At
 * most one step can therefore cross the cap, or any bound below.
 *
 * Under the cap every step runs. At the cap a new user turn gets 402, and so does a continuation
 * (last message an assistant or tool message), unless it continues a turn admitted under the cap
 * (turns.ts) that is still within `llm.turnBudget`: at most `steps` steps and `tokens` tokens for
 * the whole turn, the tokens never more than the cap itself. And past the cap the month's total may
 * grow by at most one turn's token budget (plus the step that crosses it), however many turns were admitted before, so starting
 * many small turns under the cap buys nothing.
 */
import type { Clock } from '../../kernel/clock.ts';
import { HttpError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import {
  llmTurnsTable,
  llmUsageLogTable,
  llmUsageTable,
  periodOf,
  usageId,
  type LlmTurnRow,
  type LlmUsageRow,
} from './tables.ts';
import { TURN_IDLE_MS, turnTokenBudget, type TurnBudget } from './turns.ts';

export const QUOTA_MESSAGE =
  'Monthly LLM token limit reached. Try again next month or contact your administrator.';
const BUSY_MESSAGE =
  'Another LLM request of yours is still running; try again when it has finished.';
/** 402 for a continuation of an admitted turn that has used what it may run past the cap. */
const turnSpentMessage = (steps: number, tokens: number) =>
  `Monthly LLM token limit reached, and this turn has used what it may run past it (${steps} steps, ${tokens} tokens). Try again next month or contact your administrator.`;

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
  /** The admitted turn the step belongs to ({@link Admission.turnId}); its budget is charged too. */
  turnId?: string | null;
}

/** A step allowed to run; `release` must be called once, after the step is counted or abandoned. */
export interface Admission {
  /** The admitted turn (an `llm_turns` row) this step counts against, if any. */
  turnId: string | null;
  release(): Promise<void>;
}

const UNCAPPED: Admission = { turnId: null, release: async () => {} };
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

export interface AdmitOptions {
  /** The last message is the user's: the step starts a turn. */
  isNewTurn: boolean;
  /** The key of the step's turn (turns.ts), null when the history has no user message. */
  turnKey: string | null;
  budget: TurnBudget;
  /** Bounds both the lease and the wait for another running step (then 429). */
  leaseMs: number;
  signal: AbortSignal;
}

type Verdict = { refuse: string } | 'busy' | { admit: string | null };

/**
 * The rule, read under the lock of the user's month row: may this step run, and against which
 * admitted turn does it count? Writes the lease and the turn's bookkeeping when it may.
 */
async function decide(
  tx: Store,
  clock: Clock,
  id: string,
  limit: number,
  options: AdmitOptions,
): Promise<Verdict> {
  const row = await tx.table(llmUsageTable).getForUpdate(id);
  if (!row) return { refuse: QUOTA_MESSAGE };
  const turns = tx.table(llmTurnsTable);
  const found = options.turnKey ? await turns.get(options.turnKey) : null;
  const now = clock.now();
  // A turn idle for a day is over, whatever its budget says.
  const turn = found && Date.parse(found.lastStepAt) > now.getTime() - TURN_IDLE_MS ? found : null;
  const over = row.totalTokens >= limit;
  if (options.isNewTurn && over) return { refuse: QUOTA_MESSAGE };
  if (!options.isNewTurn && over) {
    if (!turn) return { refuse: QUOTA_MESSAGE };
    const tokens = turnTokenBudget(options.budget, limit);
    if (
      turn.steps >= options.budget.steps ||
      turn.totalTokens >= tokens ||
      row.totalTokens >= limit + tokens
    )
      return { refuse: turnSpentMessage(options.budget.steps, tokens) };
  }
  if (row.turnLeaseUntil && Date.parse(row.turnLeaseUntil) > now.getTime()) return 'busy';
  const iso = now.toISOString();
  await tx
    .table(llmUsageTable)
    .update(id, { turnLeaseUntil: new Date(now.getTime() + options.leaseMs).toISOString() });
  if (options.isNewTurn && options.turnKey) {
    // A new turn admitted under the cap starts its budget afresh, also when the same history was
    // admitted before (a retried step, or the same first question in a new conversation).
    const admitted: LlmTurnRow = {
      id: options.turnKey,
      userId: row.userId,
      steps: 0,
      totalTokens: 0,
      admittedAt: iso,
      lastStepAt: iso,
    };
    await turns.put(admitted);
    // The user's turns that can no longer pass the cap go now: the table keeps a day of them.
    const idle = new Date(now.getTime() - TURN_IDLE_MS).toISOString();
    await turns.deleteWhere({ userId: row.userId, lastStepAt: { lt: idle } });
    return { admit: admitted.id };
  }
  if (!turn) return { admit: null };
  await turns.update(turn.id, { lastStepAt: iso });
  return { admit: turn.id };
}

/**
 * Decides whether a step may run (the rule is in the header of this file); 402 when it may not.
 * A user without a cap is never checked and nothing about their turns is kept.
 */
export async function admitStep(
  store: Store,
  clock: Clock,
  user: UserRow,
  options: AdmitOptions,
): Promise<Admission> {
  const limit = user.llmMonthlyTokenLimit;
  if (limit === null) return UNCAPPED;
  const table = store.table(llmUsageTable);
  const period = periodOf(clock.now());
  const id = usageId(user.id, period);
  // Make sure the row exists, so the locked read below always has something to lock.
  await table.increment(id, { steps: 0 }, emptyRow(user.id, period, clock.iso()));
  const deadline = Date.now() + options.leaseMs;
  for (;;) {
    const verdict = await store.transaction((tx) => decide(tx, clock, id, limit, options));
    if (verdict !== 'busy' && 'refuse' in verdict) throw new HttpError(402, verdict.refuse);
    if (verdict !== 'busy')
      return {
        turnId: verdict.admit,
        release: () => table.update(id, { turnLeaseUntil: null }).then(() => undefined),
      };
    if (options.signal.aborted) throw new HttpError(400, 'The request was cancelled.');
    if (Date.now() > deadline) throw new HttpError(429, BUSY_MESSAGE);
    // Jitter spreads waiting steps out so they do not all retry on the same tick.
    await sleep(10 + Math.random() * 30);
  }
}

/**
 * Counts a finished step: the month total (an atomic upsert), the admitted turn's budget and one
 * log row without message content, in one transaction so a step is either fully counted and
 * logged or not at all.
 */
export async function recordStep(store: Store, clock: Clock, record: StepRecord): Promise<void> {
  const period = periodOf(clock.now());
  const now = clock.iso();
  const { promptTokens, completionTokens, totalTokens } = record.usage;
  // The writes need no read first; the id is generated outside so a retried
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
    // A turn pruned meanwhile is simply not there (null); its budget no longer matters.
    if (record.turnId)
      await tx.table(llmTurnsTable).increment(record.turnId, { steps: 1, totalTokens });
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
