/**
 * The one place that talks to a provider, through the `openai` package against any
 * OpenAI-compatible `/chat/completions` endpoint. Converts the desktop's message shape to the wire
 * format, runs a step (whole or streamed), and turns every provider failure into a 502 whose message
 * says what went wrong without echoing the key.
 */
import { createRequire } from 'node:module';
import type OpenAI from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { HttpError } from '../../kernel/errors.ts';
import { DEFAULT_BASE_URLS, type LlmConfig, type Provider } from './config.ts';
import type { ChatMessage, ChatStepBody } from './schemas.ts';
import type { StepUsage } from './usage.ts';

type LlmSection = NonNullable<LlmConfig>;

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface StepAnswer {
  content: string;
  toolCalls: ToolCall[];
  usage: StepUsage;
}

/** One client per provider, rebuilt after a reload changes the section (see {@link ProviderClients.clear}). */
export interface ProviderClients {
  get(section: LlmSection, provider: Provider): OpenAI;
  clear(): void;
}

let openai: typeof OpenAI | undefined;
/**
 * The openai client library, loaded on the first LLM call: hubs without an `llm` section (and every
 * CLI command) never pay for it. Its CommonJS build keeps `get` synchronous.
 */
function loadOpenAI(): typeof OpenAI {
  if (!openai) {
    const loaded = createRequire(import.meta.url)('openai') as {
      OpenAI: typeof OpenAI;
      default?: typeof OpenAI;
    };
    openai = loaded.OpenAI ?? loaded.default!;
  }
  return openai;
}

export function createProviderClients(): ProviderClients {
  const clients = new Map<Provider, OpenAI>();
  return {
    get(section, provider) {
      let client = clients.get(provider);
      if (!client) {
        const settings = section.providers[provider]!;
        const OpenAIClient = loadOpenAI();
        client = new OpenAIClient({
          apiKey: settings.apiKey,
          baseURL: settings.baseUrl ?? DEFAULT_BASE_URLS[provider],
          timeout: section.timeoutMs,
          // A retry would bill the user twice for one answer and hide outages; the client retries.
          maxRetries: 0,
          // Looked up per call, not captured at construction, so a test's fetch interceptor applies.
          fetch: (url, init) => globalThis.fetch(url, init),
        });
        clients.set(provider, client);
      }
      return client;
    },
    clear: () => clients.clear(),
  };
}

function toWire(message: ChatMessage): ChatCompletionMessageParam {
  const name = message.name === undefined ? {} : { name: message.name };
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content ?? '', ...name };
    case 'user':
      return { role: 'user', content: message.content ?? '', ...name };
    case 'tool':
      return { role: 'tool', content: message.content ?? '', tool_call_id: message.tool_call_id! };
    case 'assistant': {
      const calls = message.tool_calls?.map((call) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      }));
      return {
        role: 'assistant',
        content: message.content ?? null,
        ...name,
        ...(calls && calls.length > 0 ? { tool_calls: calls } : {}),
      };
    }
  }
}

/** The request body sent upstream: a non-blank `systemPrompt` becomes the first message. */
export function upstreamRequest(body: ChatStepBody) {
  const messages = body.messages.map(toWire);
  if (body.systemPrompt?.trim()) messages.unshift({ role: 'system', content: body.systemPrompt });
  return {
    model: body.model,
    messages,
    ...(body.tools && body.tools.length > 0
      ? { tools: body.tools as unknown as ChatCompletionTool[] }
      : {}),
  };
}

/**
 * A token count from the provider as a whole number in [0, Number.MAX_SAFE_INTEGER]: missing, negative
 * or non-numeric counts become 0, fractions round up (the provider did the work), huge ones are capped.
 */
export function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) return 0;
  return Math.min(Math.ceil(value), Number.MAX_SAFE_INTEGER);
}

/**
 * The step's usage. The provider is not trusted: each count is clamped by {@link tokenCount}, and the
 * total is at least prompt + completion, so a provider cannot under-report the total that the monthly
 * cap counts (a larger reported total, e.g. with reasoning tokens, is kept).
 */
export function usageOf(usage: OpenAI.CompletionUsage | null | undefined): StepUsage {
  // Some local servers report no usage; the step then counts as zero rather than failing.
  const promptTokens = tokenCount(usage?.prompt_tokens);
  const completionTokens = tokenCount(usage?.completion_tokens);
  const totalTokens = Math.min(
    Math.max(tokenCount(usage?.total_tokens), promptTokens + completionTokens),
    Number.MAX_SAFE_INTEGER,
  );
  return { promptTokens, completionTokens, totalTokens };
}

/** Runs one completion and returns the answer. */
export async function completeStep(
  client: OpenAI,
  body: ChatStepBody,
  signal: AbortSignal,
): Promise<StepAnswer> {
  const completion = await client.chat.completions.create(upstreamRequest(body), { signal });
  const message = completion.choices[0]?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
      : [],
  );
  return { content: message?.content ?? '', toolCalls, usage: usageOf(completion.usage) };
}

/**
 * Runs one streamed completion, handing each text chunk to `onText`; resolves with the whole answer.
 * Rejects as soon as `signal` aborts, even while waiting for the next chunk.
 */
export async function streamStep(
  client: OpenAI,
  body: ChatStepBody,
  signal: AbortSignal,
  onText: (chunk: string) => void,
): Promise<StepAnswer> {
  const stream = await client.chat.completions.create(
    { ...upstreamRequest(body), stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  // The `openai` stream ends quietly (no error) when its signal aborts, and a body that does not
  // notice the abort keeps the next read waiting: race every read against the signal instead.
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason ?? new Error('The request was aborted.'));
  });
  aborted.catch(() => undefined);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const iterator = stream[Symbol.asyncIterator]();
  let content = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  // Tool calls arrive in fragments keyed by index: the id and name once, the arguments in pieces.
  const calls = new Map<number, ToolCall>();
  try {
    for (;;) {
      const read = iterator.next();
      read.catch(() => undefined);
      const next = await Promise.race([read, aborted]);
      signal.throwIfAborted();
      if (next.done) break;
      const chunk = next.value;
      if (chunk.usage) usage = chunk.usage;
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) {
        content += delta.content;
        onText(delta.content);
      }
      for (const part of delta?.tool_calls ?? []) {
        const call = calls.get(part.index) ?? { id: '', name: '', arguments: '' };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
        calls.set(part.index, call);
      }
    }
  } catch (error) {
    // Stop reading the provider's body; the pending read settles on its own.
    stream.controller.abort();
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return {
    content,
    toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
    usage: usageOf(usage),
  };
}

/** A provider failure as the 502 the client sees. The key never appears in the message. */
export function upstreamFailure(
  error: unknown,
  provider: Provider,
  section: LlmSection,
): HttpError {
  const key = section.providers[provider]?.apiKey;
  const clean = (text: string) => (key ? text.split(key).join('***') : text).slice(0, 500);
  // A provider error can only exist once the library was loaded for the call that failed.
  const OpenAI = openai;
  if (!OpenAI)
    return new HttpError(
      502,
      `The LLM provider (${provider}) failed: ${clean(error instanceof Error ? error.message : String(error))}`,
    );
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new HttpError(
      502,
      `The LLM provider (${provider}) did not answer within ${Math.round(section.timeoutMs / 1000)} s.`,
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new HttpError(
      502,
      `Could not reach the LLM provider (${provider}): ${clean(error.message)}`,
    );
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const detail = clean(error.message.replace(/^\d{3}\s*/, '')) || 'no details';
    return new HttpError(502, `The LLM provider (${provider}) answered ${error.status}: ${detail}`);
  }
  return new HttpError(
    502,
    `The LLM provider (${provider}) failed: ${clean(error instanceof Error ? error.message : String(error))}`,
  );
}
