/**
 * Request bodies of the chat routes (inventory B.6). Messages use the desktop client's shape —
 * `tool_calls` as `{id, name, arguments}` — and are converted to the OpenAI wire format upstream.
 * `tools` are OpenAI tool definitions passed through untouched; only their shape as objects is
 * checked here, the provider judges the rest.
 */
import { z } from 'zod';

/** Large enough for long conversations, small enough that one request cannot hog the hub. */
const MAX_MESSAGES = 1000;
const MAX_TOOLS = 128;

const toolCallSchema = z.strictObject({
  id: z.string().min(1).max(256),
  name: z.string().min(1).max(256),
  arguments: z.string(),
});

const messageSchema = z
  .strictObject({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string().nullable().optional(),
    tool_calls: z.array(toolCallSchema).max(MAX_TOOLS).optional(),
    tool_call_id: z.string().min(1).max(256).optional(),
    name: z.string().min(1).max(256).optional(),
  })
  .superRefine((message, ctx) => {
    if (message.tool_calls && message.role !== 'assistant') {
      ctx.addIssue({
        code: 'custom',
        path: ['tool_calls'],
        message: 'only assistant messages may carry tool calls',
      });
    }
    if (message.role === 'tool' && !message.tool_call_id) {
      ctx.addIssue({
        code: 'custom',
        path: ['tool_call_id'],
        message: 'is required on tool messages',
      });
    }
    if (message.role !== 'assistant' && message.role !== 'tool' && (message.content ?? '') === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: `is required on ${message.role} messages`,
      });
    }
  });

export const chatStepBody = z.strictObject({
  model: z.string().trim().min(1).max(128),
  messages: z.array(messageSchema).min(1, 'must contain at least one message').max(MAX_MESSAGES),
  systemPrompt: z.string().optional(),
  tools: z
    .array(z.looseObject({ type: z.string().min(1) }))
    .max(MAX_TOOLS)
    .optional(),
});

export const chatStreamBody = chatStepBody.extend({
  /** The client's id of the whole turn, echoed in every frame. */
  turnId: z.string().min(1).max(128),
  /** Which step of the turn this is (0 first), echoed in every frame. */
  stepIndex: z.number().int().min(0).max(1_000_000),
});

export type ChatMessage = z.output<typeof messageSchema>;
export type ChatStepBody = z.output<typeof chatStepBody>;
