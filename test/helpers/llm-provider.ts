/**
 * A fake LLM provider for suites that configure the `llm` section: msw plays the provider at the
 * HTTP boundary (and nowhere else — the hub, its storage and the `openai` package all run for real),
 * and the `llm` section points the `openai` provider at its fake OpenAI-compatible base URL.
 */
import { http, HttpResponse, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { UserInput } from '../../kernel/identity/users.ts';
import { EMBEDDED_DRIVER } from './drivers.ts';
import { useUser } from './fixtures.ts';
import { useTestHub, type TestHub } from './hub.ts';

export const BASE_URL = 'https://llm.test/v1';
export const COMPLETIONS_URL = `${BASE_URL}/chat/completions`;
export const API_KEY = 'sk-test-secret-key-123';

/** The `llm` section the suites use: one provider on the fake server, plus a local model. */
export function llmSection(overrides: Record<string, unknown> = {}) {
  return {
    providers: { openai: { apiKey: API_KEY, baseUrl: BASE_URL } },
    catalog: [{ id: 'local-model', label: 'Local model', provider: 'openai' }],
    timeoutMs: 2000,
    ...overrides,
  };
}

/** What the fake provider received, newest last. */
export const received: { body: any; authorization: string | null }[] = [];

export const server = setupServer();

/** Starts msw for the file; unknown requests fail the test instead of reaching the network. */
export function useProvider(): void {
  // Only the provider is mocked: requests to services on this machine (the Firestore emulator's
  // reset endpoint) go through, anything else unexpected fails the test.
  beforeAll(() =>
    server.listen({
      onUnhandledRequest: (request, print) => {
        const host = new URL(request.url).hostname;
        if (host !== '127.0.0.1' && host !== 'localhost') print.error();
      },
    }),
  );
  afterEach(() => {
    server.resetHandlers();
    received.length = 0;
  });
  afterAll(() => server.close());
}

/** A chat completion body as OpenAI sends it. */
export function completion(
  message: { content?: string | null; tool_calls?: unknown[] },
  usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: message.content ?? null,
          ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
        },
      },
    ],
    usage,
  };
}

/** Answers every completion with `body` (recording each request). */
export function answerWith(
  body: JsonBodyType | ((request: any) => JsonBodyType),
  status = 200,
): void {
  server.use(
    http.post(COMPLETIONS_URL, async ({ request }) => {
      const json = await request.json();
      received.push({ body: json, authorization: request.headers.get('authorization') });
      return HttpResponse.json(typeof body === 'function' ? body(json) : body, { status });
    }),
  );
}

/** Answers with an SSE stream of the given chunk objects, then `[DONE]`. */
export function streamWith(chunks: unknown[]): void {
  server.use(
    http.post(COMPLETIONS_URL, async ({ request }) => {
      received.push({
        body: await request.json(),
        authorization: request.headers.get('authorization'),
      });
      const text =
        chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
      return new HttpResponse(text, { headers: { 'content-type': 'text/event-stream' } });
    }),
  );
}

/**
 * A provider that sends one text chunk, then holds the stream open until `release()` is called
 * (or the hub aborts the request), then finishes with usage and `[DONE]`. `aborted`: the hub
 * aborted the upstream request or cancelled its body.
 */
export function heldProvider() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const state = { aborted: false, release };
  server.use(
    http.post(COMPLETIONS_URL, ({ request }) => {
      request.signal.addEventListener('abort', () => void (state.aborted = true));
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(
            encoder.encode(
              `data: ${JSON.stringify(chunk({ role: 'assistant', content: 'partial' }))}\n\n`,
            ),
          );
          void gate.then(() => {
            try {
              controller.enqueue(
                encoder.encode(`data: ${JSON.stringify(chunk({ content: ' rest' }))}\n\n`),
              );
              controller.enqueue(
                encoder.encode(
                  `data: ${JSON.stringify(chunk({}, { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }))}\n\n`,
                ),
              );
              controller.enqueue(encoder.encode('data: [DONE]\n\n'));
              controller.close();
            } catch {
              // The hub cancelled the upstream response already.
            }
          });
        },
        cancel() {
          state.aborted = true;
        },
      });
      return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
    }),
  );
  return state;
}

/** One streamed chunk with a text delta, tool-call fragments, or the final usage. */
export function chunk(delta: Record<string, unknown>, usage?: Record<string, number>) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: null }],
    ...(usage ? { usage } : {}),
  };
}

/** A user message body for `POST /llm/chat/step`. */
export function userTurn(content = 'Hello', model = 'gpt-4o') {
  return { model, messages: [{ role: 'user', content }] };
}

/** Opens `POST /llm/chat/stream` with `body` as the token's user; returns the raw streamed response. */
export function openChatStream(
  t: TestHub,
  token: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  return Promise.resolve(
    t.hub.app.request('/llm/chat/stream', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    }),
  );
}

/**
 * For the enclosing describe block: a hub (embedded database) whose `llm` section points at the
 * fake provider, and a user with `access`: by default every model, 1 000 tokens a month.
 */
export function useLlmHub(
  access: UserInput = { llmAccess: true, llmModels: ['*'], llmMonthlyTokenLimit: 1000 },
) {
  const t = useTestHub(EMBEDDED_DRIVER, { config: { llm: llmSection() } });
  return { t, user: useUser(t, access) };
}
