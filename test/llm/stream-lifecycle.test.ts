/**
 * `POST /llm/chat/stream` when the stream ends early: a client that cancels its reader while the
 * provider is still streaming must not crash the process (no enqueue on a cancelled stream, no
 * unhandled rejection), and hub shutdown must abort the upstream call and end open streams.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventually } from '../helpers/async.ts';
import {
  chunk,
  heldProvider,
  openChatStream,
  streamWith,
  useLlmHub,
  useProvider,
  userTurn,
} from '../helpers/llm-provider.ts';

useProvider();

/** Reads from `reader` until the decoded text contains `pattern`; returns all text so far. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pattern: string,
  text = '',
): Promise<string> {
  const decoder = new TextDecoder();
  while (!text.includes(pattern)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`Stream ended before ${pattern}; got ${JSON.stringify(text)}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** Reads to the end of the stream; returns all text. */
async function readToEnd(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  text = '',
): Promise<string> {
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

const framesOf = (text: string) =>
  [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));

describe('LLM chat stream: client cancels mid-stream', () => {
  // Capped, so every new turn takes (and must give back) the user's turn lease.
  const { t, user } = useLlmHub();
  const rejections = vi.fn();
  beforeEach(() => {
    rejections.mockClear();
    process.on('unhandledRejection', rejections);
  });
  afterEach(() => {
    process.off('unhandledRejection', rejections);
  });

  const open = (body: unknown) => openChatStream(t, user.token, body);
  const usage = async () =>
    (await t.request('GET', '/llm/usage', { token: user.token })).body.totalTokens as number;

  it('survives a reader cancelled while the provider is still streaming and keeps answering', async () => {
    const provider = heldProvider();
    const before = await usage();
    const res = await open({ ...userTurn(), turnId: 'cancel-1', stepIndex: 0 });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await readUntil(reader, 'partial');
    expect(framesOf(first)[0].type).toBe('step.start');
    await reader.cancel();
    await eventually(() => provider.aborted);
    provider.release();

    // The hub still answers a whole stream for the same capped user: that needs the turn lease the
    // cancelled step gave back, so the cancelled step has run to its end by now.
    streamWith([
      chunk({ role: 'assistant', content: 'fine' }),
      chunk({}, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
    ]);
    const next = await open({ ...userTurn(), turnId: 'cancel-2', stepIndex: 0 });
    expect(next.status).toBe(200);
    expect(framesOf(await next.text()).map((f) => f.type)).toEqual([
      'step.start',
      'delta.text',
      'step.end',
    ]);
    expect(await t.request('GET', '/llm/models', { token: user.token }).then((r) => r.status)).toBe(
      200,
    );
    // The cancelled step was not metered; the finished one was.
    expect(await usage()).toBe(before + 3);
    expect(rejections).not.toHaveBeenCalled();
  });
});

describe('LLM chat stream: hub shutdown', () => {
  const { t, user } = useLlmHub({ llmAccess: true, llmModels: ['*'] });

  const open = (body: unknown) => openChatStream(t, user.token, body);

  it('aborts the upstream call and ends an open stream when the hub begins shutting down', async () => {
    const provider = heldProvider();
    try {
      const res = await open({ ...userTurn(), turnId: 'shutdown-1', stepIndex: 0 });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const first = await readUntil(reader, 'partial');
      t.hub.beginShutdown();
      // Ends although the provider never finishes its answer.
      const text = await readToEnd(reader, first);
      const frames = framesOf(text);
      expect(frames.map((f) => f.type)).toEqual(['step.start', 'delta.text', 'turn.error']);
      expect(frames[2].message).toBe('The hub is shutting down; try again shortly.');
      await eventually(() => provider.aborted);
      // Not metered.
      expect((await t.request('GET', '/llm/usage', { token: user.token })).body.totalTokens).toBe(
        0,
      );
    } finally {
      provider.release();
    }
  });
});
