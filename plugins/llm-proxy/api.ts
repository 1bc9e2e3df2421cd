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
  'POST /llm/chat/step': {
    summary: 'One chat completion step through the hub',
    description: `${NEEDS_LLM} 402 when the monthly cap is used up; 429 while another step of the same user holds the turn too long; 502 when the provider fails.`,
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
    description: `${NEEDS_LLM} Refusals keep their HTTP status (402, 403, 429); once the stream has started, failures are \`turn.error\` frames. Every frame is a \`data:\` line with \`v: 1\`, \`turnId\` and \`stepIndex\`.`,
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
