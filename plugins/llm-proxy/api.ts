/** API docs of the LLM routes; the chat bodies come from the validators (./schemas.ts). */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';

const models = z
  .object({
    models: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        provider: z.enum(['openai', 'claude', 'gemini']),
      }),
    ),
    capabilities: z.object({ openai: z.boolean() }),
  })
  .meta({ id: 'LlmModels' });

const usage = z.object({
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
});

const NEEDS_LLM = 'Needs `llmAccess` on the account (403) and an `llm` section on the hub (503).';
const AT_THE_CAP =
  "At the caller's monthly cap (`llmMonthlyTokenLimit`) a new user turn gets 402, and so does a continuation (last message from the assistant or a tool) unless it continues a turn admitted under the cap — the same messages up to the turn's user message — that is still within `llm.turnBudget` (steps and tokens for the whole turn, the tokens never more than the cap; all turns together pass the cap by one turn's tokens, plus the step that crossed it, at most). A capped user's steps run one at a time: a second waits for the first, and gets 429 if it waits longer than `llm.timeoutMs`.";

export const llmProxyApi: RouteDocs = {
  'GET /llm/models': {
    summary: 'Models the caller may use',
    description: NEEDS_LLM,
    errors: [403],
    responses: { 200: models },
  },
  'GET /admin/llm/models': {
    summary: 'Every model the hub offers',
    description:
      'Answers 503 before authentication when LLM support is not configured (the desktop probes it).',
    responses: { 200: models },
  },
  'GET /llm/usage': {
    summary: "The caller's token use this month and their cap",
    description: NEEDS_LLM,
    errors: [403],
    responses: {
      200: z.object({
        period: z.string().describe('YYYY-MM (UTC)'),
        totalTokens: z.number().int(),
        limit: z.number().int().nullable(),
      }),
    },
  },
  'GET /admin/llm/usage': {
    summary: "Users' token use this month (UTC), for the users asked about",
    description:
      "Answers whether or not LLM support is configured now: what was used stays counted. A user who used nothing this month (or does not exist) has 0; each cap is the user's `llmMonthlyTokenLimit`.",
    responses: {
      200: z.object({
        period: z.string().describe('YYYY-MM (UTC)'),
        users: z.array(z.object({ userId: z.string(), totalTokens: z.number().int() })),
      }),
    },
  },
  'POST /llm/chat/step': {
    summary: 'One chat completion step through the hub',
    description: `${NEEDS_LLM} ${AT_THE_CAP} 429 while another step of the same capped user runs too long; 502 when the provider fails.`,
    errors: [402, 403, 429, 502],
    responses: {
      200: z.object({
        content: z.string(),
        toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
        usage,
      }),
    },
  },
  'POST /llm/chat/stream': {
    summary: 'One chat completion step as Server-Sent Events',
    description: `${NEEDS_LLM} ${AT_THE_CAP} Refusals keep their HTTP status (402, 403, 429); once the stream has started, failures are \`turn.error\` frames. Every frame is a \`data:\` line with \`v: 1\`, \`turnId\` and \`stepIndex\` (the client's own; the cap rule does not use them).`,
    errors: [402, 403, 429, 502],
    responses: {
      200: {
        contentType: 'text/event-stream',
        description: 'Delta, tool-call and completion frames',
        schema: { type: 'string' },
      },
    },
  },
};
