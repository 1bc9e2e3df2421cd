/**
 * `POST /llm/chat/stream`: the frames of inventory B.6 for text and tool calls, provider failures
 * as `turn.error`, refusals before the headers, and a client that goes away aborting the upstream
 * call without being metered.
 */
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/async.ts';
import { sseReader } from '../helpers/sse.ts';
import {
  chunk,
  COMPLETIONS_URL,
  heldProvider,
  openChatStream,
  received,
  server,
  streamWith,
  useLlmHub,
  useProvider,
  userTurn,
} from '../helpers/llm-provider.ts';

useProvider();

describe('LLM chat stream', () => {
  const { t, user } = useLlmHub();

  const open = (body: unknown, signal?: AbortSignal) => openChatStream(t, user.token, body, signal);
  const usage = async () =>
    (await t.request('GET', '/llm/usage', { token: user.token })).body.totalTokens as number;

  it('streams text deltas between step.start and step.end with the SSE headers and counts the usage', async () => {
    streamWith([
      chunk({ role: 'assistant', content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 }),
    ]);
    const before = await usage();
    const res = await open({ ...userTurn(), turnId: 'turn-1', stepIndex: 0 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const text = await res.text();
    expect(text.startsWith(': connected\n\n')).toBe(true);
    const frames = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(frames.map((f) => f.type)).toEqual([
      'step.start',
      'delta.text',
      'delta.text',
      'step.end',
    ]);
    expect(frames.every((f) => f.v === 1 && f.turnId === 'turn-1' && f.stepIndex === 0)).toBe(true);
    expect(frames[1].chunk + frames[2].chunk).toBe('Hello');
    expect(frames[3]).toMatchObject({
      content: 'Hello',
      toolCalls: [],
      usage: { promptTokens: 2, completionTokens: 2, totalTokens: 4 },
    });
    expect(received[0]!.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(await usage()).toBe(before + 4);
  });

  it('assembles tool calls sent in fragments into tool.call frames owned by the client', async () => {
    streamWith([
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 'call_1',
            type: 'function',
            function: { name: 'look', arguments: '{"q":' },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'up', arguments: '"x"}' } }] }),
      chunk({}, { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }),
    ]);
    const frames = [
      ...(await (await open({ ...userTurn(), turnId: 't2', stepIndex: 3 })).text()).matchAll(
        /^data: (.*)$/gm,
      ),
    ].map((m) => JSON.parse(m[1]!));
    expect(frames.map((f) => f.type)).toEqual(['step.start', 'tool.call', 'step.end']);
    expect(frames[1]).toMatchObject({
      callId: 'call_1',
      name: 'lookup',
      owner: 'harbor',
      arguments: '{"q":"x"}',
      stepIndex: 3,
    });
    expect(frames[2].toolCalls).toEqual([{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }]);
  });

  it('reports a provider failure as a turn.error frame and does not meter it', async () => {
    server.use(
      http.post(COMPLETIONS_URL, () =>
        HttpResponse.json({ error: { message: 'overloaded' } }, { status: 529 }),
      ),
    );
    const before = await usage();
    const frames = [
      ...(await (await open({ ...userTurn(), turnId: 't3', stepIndex: 0 })).text()).matchAll(
        /^data: (.*)$/gm,
      ),
    ].map((m) => JSON.parse(m[1]!));
    expect(frames.map((f) => f.type)).toEqual(['step.start', 'turn.error']);
    expect(frames[1].message).toMatch(/^The LLM provider \(openai\) answered 529/);
    expect(await usage()).toBe(before);
  });

  it('refuses bad bodies and missing access before the headers', async () => {
    const missing = await open({ ...userTurn() });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toContain('turnId');
    const other = await t.createUser({ llmAccess: false });
    const res = await t.request('POST', '/llm/chat/stream', {
      token: other.token,
      body: { ...userTurn(), turnId: 'x', stepIndex: 0 },
    });
    expect(res.status).toBe(403);
  });

  it('aborts the upstream call when the client disconnects and does not meter the step', async () => {
    const provider = heldProvider();
    const before = await usage();
    const client = new AbortController();
    const res = await open({ ...userTurn(), turnId: 't4', stepIndex: 0 }, client.signal);
    const reader = sseReader(res);
    await reader.until('partial');
    client.abort();
    await reader.cancel().catch(() => undefined);
    await eventually(() => provider.aborted);
    expect(await usage()).toBe(before);
  });
});
