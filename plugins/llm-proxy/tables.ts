/**
 * The tables of the `llm-proxy` plugin: one running total per user and month, one log row per
 * metered step, and the turns admitted under a cap. None holds message content — only counts, the
 * model, flags and hashes — so the usage record never becomes a copy of what people asked.
 */
import type { Migration } from '../../kernel/storage/contract.ts';
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

export const llmUsageTable = defineTable({
  name: 'llm_usage',
  columns: {
    /** `<userId>:<YYYY-MM>`: one row per user and UTC month, so a total is one atomic upsert. */
    id: col.id(),
    userId: col.id(),
    period: col.string(7),
    promptTokens: col.int(),
    completionTokens: col.int(),
    totalTokens: col.int(),
    steps: col.int(),
    /**
     * While a step of a capped user is running, the time its claim expires. The user's next step
     * waits for it, so concurrent steps cannot all pass the cap check before any of them is
     * counted. It expires on its own when an instance dies mid-step.
     */
    turnLeaseUntil: col.timestampNullable(),
    updatedAt: col.timestamp(),
  },
  indexes: [['userId', 'period'], ['period']],
});

export const llmUsageLogTable = defineTable({
  name: 'llm_usage_log',
  columns: {
    id: col.id(),
    userId: col.id(),
    tokenId: col.idNullable(),
    period: col.string(7),
    model: col.string(128),
    provider: col.string(16),
    promptTokens: col.int(),
    completionTokens: col.int(),
    totalTokens: col.int(),
    /** The last message was the user's (a new turn), not a tool result. */
    isNewTurn: col.bool(),
    hadToolCalls: col.bool(),
    messageCount: col.int(),
    streamed: col.bool(),
    createdAt: col.timestamp(),
  },
  indexes: [['userId', 'createdAt'], ['period']],
});

/**
 * Turns admitted under a capped user's monthly limit (see turns.ts): what lets a tool loop that was
 * started under the cap finish past it, within a budget. No message content, only a hash of it.
 */
export const llmTurnsTable = defineTable({
  name: 'llm_turns',
  columns: {
    /** sha256 of the user id and the history up to the turn's user message (turns.ts). */
    id: col.id(),
    userId: col.id(),
    /** Counted steps of the turn, the one that admitted it included. */
    steps: col.int(),
    /** Tokens the turn's counted steps used. */
    totalTokens: col.int(),
    admittedAt: col.timestamp(),
    /** When the turn's latest step was admitted; a turn idle for a day can no longer pass the cap. */
    lastStepAt: col.timestamp(),
  },
  indexes: [['userId', 'lastStepAt']],
});

export type LlmUsageRow = RowOfTable<typeof llmUsageTable>;
export type LlmUsageLogRow = RowOfTable<typeof llmUsageLogTable>;
export type LlmTurnRow = RowOfTable<typeof llmTurnsTable>;

export const llmTables = [llmUsageTable, llmUsageLogTable, llmTurnsTable];
export const llmMigrations: Migration[] = [
  { id: 'llm-proxy/0001-usage', createTables: [llmUsageTable, llmUsageLogTable] },
  { id: 'llm-proxy/0002-turns', createTables: [llmTurnsTable] },
];

/** The UTC month of a moment, `YYYY-MM`: the unit the monthly cap counts in. */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** The id of a user's row for a month. */
export const usageId = (userId: string, period: string) => `${userId}:${period}`;
