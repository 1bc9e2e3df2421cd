/**
 * Turns: how the hub tells a tool continuation of a turn it admitted under the monthly cap from any
 * other request that merely ends in an assistant or tool message.
 *
 * The desktop client sends the whole conversation with every step and no turn identity of the
 * hub's, so a turn is recognised by its content: its key is the sha256 of the user id and the
 * messages up to and including the turn's user message (the last user message of the history).
 * Every continuation of the turn repeats that prefix and only adds assistant and tool messages
 * after it, so it has the same key. `systemPrompt`, `tools` and the model are left out: a client
 * may rebuild them for each step. The key is computed again on every request from what the client
 * sent, so it cannot be forged into a turn that was not admitted; what a continuation adds after
 * the prefix is not checked, which is why an admitted turn carries a budget (usage.ts).
 */
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import type { ChatMessage } from './schemas.ts';

/** A turn whose latest step is older than this can no longer run past the cap. */
export const TURN_IDLE_MS = 24 * 60 * 60 * 1000;

/** What a turn admitted under the cap may use in all once the cap is reached (`llm.turnBudget`). */
export interface TurnBudget {
  steps: number;
  tokens: number;
}

/**
 * The key of the turn a step belongs to, or null when the history holds no user message (such a
 * request continues nothing the hub admitted).
 */
export function turnKeyOf(userId: string, messages: readonly ChatMessage[]): string | null {
  const last = messages.findLastIndex((message) => message.role === 'user');
  if (last < 0) return null;
  // One fixed shape per message, so the same conversation always hashes the same: a missing and a
  // null content, or absent and empty tool calls, are one thing to the provider as well.
  const canonical = messages
    .slice(0, last + 1)
    .map((message) => [
      message.role,
      message.content ?? '',
      message.name ?? null,
      message.tool_call_id ?? null,
      (message.tool_calls ?? []).map((call) => [call.id, call.name, call.arguments]),
    ]);
  return sha256Hex(JSON.stringify([userId, canonical]));
}

/**
 * The tokens one turn may use in all: the configured budget, but never more than the user's
 * monthly cap, so a turn cannot cost more than a month's allowance.
 */
export const turnTokenBudget = (budget: TurnBudget, limit: number) =>
  Math.min(budget.tokens, limit);
