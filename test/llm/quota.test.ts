/**
 * Metering and the monthly cap, on every HTTP driver: usage adds up exactly under concurrency, a
 * new turn at the cap gets 402 while a continuation of a turn admitted under it still runs
 * (cap-continuations.test.ts has the rest of that rule), concurrent turns overshoot the cap by at
 * most one step, and model ids in access lists are checked against the offered models. On one
 * driver: the tokens counted are on /metrics, by model and kind.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { llmUsageLogTable } from '../../plugins/llm-proxy/tables.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';
import {
  answerWith,
  completion,
  llmSection,
  useProvider,
  userTurn,
} from '../helpers/llm-provider.ts';

useProvider();

const toolContinuation = {
  model: 'gpt-4o',
  messages: [
    { role: 'user', content: 'Find x' },
    { role: 'assistant', tool_calls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] },
    { role: 'tool', tool_call_id: 'c1', content: 'found' },
  ],
};

describe.each(httpDrivers())('LLM usage and quota (%s)', (kind) => {
  const clock = createManualClock(new Date('2026-03-31T23:59:00.000Z'));
  const t = useTestHub(kind, { config: { llm: llmSection() }, clock });

  it('adds up 20 concurrent steps of one user exactly and logs each without message content', async () => {
    const user = await t.createUser({ llmAccess: true, llmModels: ['*'] });
    answerWith(
      completion({ content: 'ok' }, { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 }),
    );
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.request('POST', '/llm/chat/step', {
          token: user.token,
          body: userTurn('secret question'),
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const usage = await t.request('GET', '/llm/usage', { token: user.token });
    expect(usage.body).toEqual({ period: '2026-03', totalTokens: 140, limit: null });
    const log = await t.driver
      .forTenant(DEFAULT_TENANT_ID)
      .table(llmUsageLogTable)
      .find({ where: { userId: user.id } });
    expect(log).toHaveLength(20);
    expect(log[0]).toMatchObject({
      model: 'gpt-4o',
      provider: 'openai',
      totalTokens: 7,
      isNewTurn: true,
      hadToolCalls: false,
      messageCount: 1,
      streamed: false,
    });
    expect(JSON.stringify(log)).not.toContain('secret question');
  });

  it('refuses a new turn with 402 once the month total reaches the limit, but runs a continuation of a turn admitted under it', async () => {
    const user = await t.createUser({
      llmAccess: true,
      llmModels: ['*'],
      llmMonthlyTokenLimit: 10,
    });
    answerWith(
      completion({ content: 'ok' }, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 }),
    );
    const findX = { model: 'gpt-4o', messages: toolContinuation.messages.slice(0, 1) };
    for (const body of [findX, userTurn()])
      expect((await t.request('POST', '/llm/chat/step', { token: user.token, body })).status).toBe(
        200,
      );
    const refused = await t.request('POST', '/llm/chat/step', {
      token: user.token,
      body: userTurn(),
    });
    expect([refused.status, refused.body.error]).toEqual([
      402,
      'Monthly LLM token limit reached. Try again next month or contact your administrator.',
    ]);
    expect(
      (await t.request('POST', '/llm/chat/step', { token: user.token, body: toolContinuation }))
        .status,
    ).toBe(200);
    expect((await t.request('GET', '/llm/usage', { token: user.token })).body).toEqual({
      period: '2026-03',
      totalTokens: 18,
      limit: 10,
    });
    // A new UTC month starts from zero.
    clock.advance(60_000);
    expect((await t.request('GET', '/llm/usage', { token: user.token })).body).toEqual({
      period: '2026-04',
      totalTokens: 0,
      limit: 10,
    });
    expect(
      (await t.request('POST', '/llm/chat/step', { token: user.token, body: userTurn() })).status,
    ).toBe(200);
    clock.advance(-60_000);
  });

  it('lets concurrent new turns of a capped user overshoot the cap by at most one step', async () => {
    const user = await t.createUser({
      llmAccess: true,
      llmModels: ['*'],
      llmMonthlyTokenLimit: 25,
    });
    answerWith(
      completion({ content: 'ok' }, { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 }),
    );
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.request('POST', '/llm/chat/step', { token: user.token, body: userTurn() }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(9);
    expect((await t.request('GET', '/llm/usage', { token: user.token })).body.totalTokens).toBe(30);
  });

  it('refuses every new turn of a user whose limit is 0', async () => {
    const user = await t.createUser({ llmAccess: true, llmModels: ['*'], llmMonthlyTokenLimit: 0 });
    expect(
      (await t.request('POST', '/llm/chat/step', { token: user.token, body: userTurn() })).status,
    ).toBe(402);
    expect((await t.request('GET', '/llm/usage', { token: user.token })).body).toEqual({
      period: '2026-03',
      totalTokens: 0,
      limit: 0,
    });
  });

  it("gives admins several users' month totals at once, 0 for users who used nothing, and nobody else", async () => {
    const [busy, idle] = [
      await t.createUser({ llmAccess: true, llmModels: ['*'] }),
      await t.createUser({ llmAccess: true, llmModels: ['*'] }),
    ];
    answerWith(
      completion({ content: 'ok' }, { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 }),
    );
    for (let i = 0; i < 2; i++)
      expect(
        (await t.request('POST', '/llm/chat/step', { token: busy.token, body: userTurn() })).status,
      ).toBe(200);
    const res = await t.request('GET', `/admin/llm/usage?userIds=${idle.id},${busy.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      period: '2026-03',
      users: [
        { userId: idle.id, totalTokens: 0 },
        { userId: busy.id, totalTokens: 22 },
      ],
    });
    const member = await t.request('GET', `/admin/llm/usage?userIds=${busy.id}`, {
      token: busy.token,
    });
    expect(member.status).toBe(403);
    const missing = await t.request('GET', '/admin/llm/usage');
    expect([missing.status, missing.body.error]).toEqual([
      400,
      'userIds: must be a single string of comma-separated ids',
    ]);
  });

  it('rejects unknown model ids on POST and PUT /admin/users and warns about stale ones', async () => {
    const bad = await t.request('POST', '/admin/users', {
      body: { name: uniqueName(), role: 'user', llmAccess: true, llmModels: ['gpt-4o', 'gpt-9'] },
    });
    expect([bad.status, bad.body.error]).toEqual([400, 'Unknown LLM model id: gpt-9.']);
    const good = await t.request('POST', '/admin/users', {
      body: { name: uniqueName(), role: 'user', llmAccess: true, llmModels: ['local-model'] },
    });
    expect(good.status).toBe(201);
    const put = await t.request('PUT', `/admin/users/${good.body.user.id}`, {
      body: { llmModels: ['gemini-1.5-pro'] },
    });
    expect([put.status, put.body.error]).toEqual([400, 'Unknown LLM model id: gemini-1.5-pro.']);
    // A model that stopped being offered shows up as a warning.
    const stale = await t.createUser({ name: uniqueName(), llmAccess: true, llmModels: ['*'] });
    await t.driver
      .forTenant(DEFAULT_TENANT_ID)
      .table(usersTable)
      .update(stale.id, { llmModels: ['old-model'] });
    const list = await t.request('GET', '/admin/users');
    const entry = list.body.users.find((u: any) => u.id === stale.id);
    expect(entry.warnings).toEqual(['Unknown LLM model id "old-model".']);
  });
});

describe('LLM token metrics', () => {
  const t = useTestHub(httpDrivers()[0]!, {
    config: { llm: llmSection() },
    // A scraper on the hub's host: without a token, /metrics answers only to loopback clients.
    ip: '127.0.0.1',
  });

  it("adds each step's prompt and completion tokens to workspace_hub_llm_tokens_total of its model", async () => {
    const user = await t.createUser({ llmAccess: true, llmModels: ['gpt-4o'] });
    for (let i = 0; i < 2; i++) {
      answerWith(
        completion({ content: 'Hi' }, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }),
      );
      expect(
        (await t.request('POST', '/llm/chat/step', { token: user.token, body: userTurn() })).status,
      ).toBe(200);
    }
    const text = (await t.request('GET', '/metrics', { token: null })).text;
    expect(text).toMatch(/^workspace_hub_llm_tokens_total\{model="gpt-4o",kind="prompt"\} 14$/m);
    expect(text).toMatch(/^workspace_hub_llm_tokens_total\{model="gpt-4o",kind="completion"\} 6$/m);
  });
});
