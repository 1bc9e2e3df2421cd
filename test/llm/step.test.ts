/**
 * `POST /llm/chat/step`, the models routes and the check order, against a provider played by msw:
 * text answers, tool calls, the wire format sent upstream, provider failures and timeouts.
 */
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { EMBEDDED_DRIVER, httpDrivers } from '../helpers/drivers.ts';
import { useUser } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';
import {
  API_KEY,
  answerWith,
  completion,
  COMPLETIONS_URL,
  llmSection,
  received,
  server,
  useProvider,
  userTurn,
} from '../helpers/llm-provider.ts';

useProvider();

describe('LLM chat step', () => {
  const t = useTestHub(EMBEDDED_DRIVER, { config: { llm: llmSection() } });
  const off = useTestHub(t);
  const user = useUser(t, { llmAccess: true, llmModels: ['gpt-4o', 'local-model'] });
  /** POST /llm/chat/step with `body`, as `user` unless another token is given. */
  const step = (body: unknown = userTurn(), token = user.token) =>
    t.request('POST', '/llm/chat/step', { token, body });

  it('answers a text step with content, an empty tool call list and the usage', async () => {
    answerWith(completion({ content: 'Hi there' }));
    const res = await step({ ...userTurn(), systemPrompt: 'Be brief.' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      content: 'Hi there',
      toolCalls: [],
      usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 },
    });
    expect(received[0]!.authorization).toBe(`Bearer ${API_KEY}`);
    expect(received[0]!.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ]);
  });

  it('returns tool calls and sends tools and earlier tool traffic upstream in OpenAI format', async () => {
    const call = {
      id: 'call_1',
      type: 'function',
      function: { name: 'lookup', arguments: '{"q":"x"}' },
    };
    answerWith(completion({ content: null, tool_calls: [call] }));
    const tools = [
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } },
    ];
    const messages = [
      { role: 'user', content: 'Find x' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_0', name: 'lookup', arguments: '{}' }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'nothing' },
    ];
    const res = await t.request('POST', '/llm/chat/step', {
      token: user.token,
      body: { model: 'local-model', messages, tools },
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('');
    expect(res.body.toolCalls).toEqual([{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }]);
    const sent = received[0]!.body;
    expect(sent.model).toBe('local-model');
    expect(sent.tools).toEqual(tools);
    expect(sent.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_0', type: 'function', function: { name: 'lookup', arguments: '{}' } },
      ],
    });
    expect(sent.messages[2]).toEqual({ role: 'tool', content: 'nothing', tool_call_id: 'call_0' });
  });

  it('lists only the models of the caller, while the admin list shows every offered model', async () => {
    const mine = await t.request('GET', '/llm/models', { token: user.token });
    expect(mine.body.models.map((m: any) => m.id).sort()).toEqual(['gpt-4o', 'local-model']);
    expect(mine.body.capabilities).toEqual({ openai: true });
    const all = await t.request('GET', '/admin/llm/models');
    expect(all.body.models.map((m: any) => m.id)).toEqual(['gpt-4o', 'gpt-4o-mini', 'local-model']);
    expect(all.body.models[0]).toEqual({ id: 'gpt-4o', label: 'GPT-4o', provider: 'openai' });
  });

  it('answers 503 on every user LLM route when the llm section is absent', async () => {
    const plain = await off.createUser({ llmAccess: true });
    for (const [method, path] of [
      ['GET', '/llm/models'],
      ['GET', '/llm/usage'],
      ['POST', '/llm/chat/step'],
      ['POST', '/llm/chat/stream'],
    ] as const) {
      const res = await off.request(method, path, {
        token: plain.token,
        body: method === 'POST' ? userTurn() : undefined,
      });
      expect([path, res.status, res.body.error]).toEqual([
        path,
        503,
        'LLM support is not configured on this hub.',
      ]);
    }
  });

  it('refuses users without LLM access, models not offered and models not on the user list with 403', async () => {
    const noAccess = await t.createUser({ llmAccess: false, llmModels: ['*'] });
    const models = await t.request('GET', '/llm/models', { token: noAccess.token });
    expect([models.status, models.body]).toEqual([
      403,
      { error: 'LLM access is not enabled for your account (llmAccess).', code: 'forbidden' },
    ]);
    expect((await step(userTurn(), noAccess.token)).status).toBe(403);
    const notOffered = await step(userTurn('hi', 'gemini-1.5-pro'));
    expect([notOffered.status, notOffered.body.error]).toEqual([
      403,
      'Model is not offered by this hub.',
    ]);
    const notMine = await step(userTurn('hi', 'gpt-4o-mini'));
    expect([notMine.status, notMine.body.error]).toEqual([
      403,
      'You are not allowed to use this model.',
    ]);
    expect((await t.request('GET', '/admin/llm/models', { token: user.token })).status).toBe(403);
    expect(received).toHaveLength(0);
  });

  it('rejects malformed bodies with a 400 that names the field', async () => {
    const cases: [unknown, string][] = [
      [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
      [{ model: 'gpt-4o', messages: [] }, 'messages'],
      [{ model: 'gpt-4o', messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role'],
      [{ model: 'gpt-4o', messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.tool_call_id'],
      [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], tools: 'all' }, 'tools'],
      [{ ...userTurn(), extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await step(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(field);
    }
    expect(
      (await t.request('POST', '/llm/chat/step', { token: user.token, rawBody: '{"model":' }))
        .status,
    ).toBe(400);
  });

  it('turns a provider error into a 502 that names the provider and never the key, and does not meter it', async () => {
    answerWith(
      {
        error: { message: `Incorrect API key provided: ${API_KEY}`, type: 'invalid_request_error' },
      },
      401,
    );
    const res = await step();
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/^The LLM provider \(openai\) answered 401/);
    expect(res.body.error).not.toContain(API_KEY);
    server.use(http.post(COMPLETIONS_URL, () => HttpResponse.error()));
    const down = await step();
    expect([down.status, down.body.error]).toEqual([
      502,
      expect.stringMatching(/^Could not reach the LLM provider \(openai\)/),
    ]);
    const usage = await t.request('GET', '/llm/usage', { token: user.token });
    const before = usage.body.totalTokens;
    answerWith({ not: 'a completion' });
    await step();
    expect((await t.request('GET', '/llm/usage', { token: user.token })).body.totalTokens).toBe(
      before,
    );
  });

  it('answers 502 when the provider does not answer within timeoutMs', async () => {
    server.use(
      http.post(COMPLETIONS_URL, async () => {
        await delay(5000);
        return HttpResponse.json(completion({ content: 'late' }));
      }),
    );
    const res = await step();
    expect([res.status, res.body.error]).toEqual([
      502,
      'The LLM provider (openai) did not answer within 2 s.',
    ]);
  });
});

describe.each(httpDrivers())('GET /admin/llm/models without an llm section on %s', (kind) => {
  const off = useTestHub(kind);

  it('asks for a token first: no token and an unknown token get 401', async () => {
    for (const token of [null, 'hbk_unknown']) {
      const res = await off.request('GET', '/admin/llm/models', { token });
      expect([res.status, res.body]).toEqual([
        401,
        { error: 'Unauthorized', code: 'unauthorized' },
      ]);
    }
  });

  it('refuses a user-role token with 403, even one with LLM access', async () => {
    const plain = await off.createUser({ llmAccess: true, llmModels: ['*'] });
    const res = await off.request('GET', '/admin/llm/models', { token: plain.token });
    expect([res.status, res.body]).toEqual([
      403,
      { error: 'Admin role required.', code: 'forbidden' },
    ]);
  });

  it('answers 503 to an admin token', async () => {
    const res = await off.request('GET', '/admin/llm/models');
    expect([res.status, res.body]).toEqual([
      503,
      { error: 'LLM support is not configured on this hub.', code: 'not_configured' },
    ]);
  });
});
