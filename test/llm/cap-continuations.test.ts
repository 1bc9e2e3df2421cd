/**
 * Continuations at the monthly cap: a request that merely ends in an assistant or tool message
 * gets 402 there like a new turn, while a tool loop admitted under the cap may finish past it
 * within `llm.turnBudget` (steps and tokens per turn, never more than the cap, and one turn's
 * tokens past the cap for all turns together). Both step routes, two hubs on one database; and
 * the `llm.turnBudget` keys.
 */
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../kernel/config/errors.ts';
import { parseConfig } from '../../kernel/config/load.ts';
import { llmSchema, type LlmConfig } from '../../plugins/llm-proxy/config.ts';
import { llmTurnsTable } from '../../plugins/llm-proxy/tables.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useTestHub, type TestHub } from '../helpers/hub.ts';
import {
  chunk,
  completion,
  COMPLETIONS_URL,
  llmSection,
  openChatStream,
  received,
  server,
  useProvider,
} from '../helpers/llm-provider.ts';

useProvider();

const QUOTA =
  'Monthly LLM token limit reached. Try again next month or contact your administrator.';
const TURN_SPENT = (steps: number, tokens: number) =>
  `Monthly LLM token limit reached, and this turn has used what it may run past it (${steps} steps, ${tokens} tokens). Try again next month or contact your administrator.`;

type Message = Record<string, unknown>;
type Route = 'step' | 'stream';

/** The provider answers every step, plain or streamed, with one tool call using `tokens` tokens. */
function answerToolCall(tokens: number): void {
  server.use(
    http.post(COMPLETIONS_URL, async ({ request }) => {
      const body = (await request.json()) as { stream?: boolean };
      received.push({ body, authorization: null });
      const usage = { prompt_tokens: tokens - 1, completion_tokens: 1, total_tokens: tokens };
      const call = { id: `call_${received.length}`, type: 'function' };
      const fn = { name: 'lookup', arguments: '{}' };
      if (!body.stream)
        return HttpResponse.json(completion({ tool_calls: [{ ...call, function: fn }] }, usage));
      const chunks = [
        chunk({ tool_calls: [{ index: 0, ...call, function: fn }] }),
        chunk({}, usage),
      ];
      const text =
        chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
      return new HttpResponse(text, { headers: { 'content-type': 'text/event-stream' } });
    }),
  );
}

const ask = (question: string): Message[] => [{ role: 'user', content: question }];
/** The history after one more round of the tool loop: the model's call and the tool's result. */
function continued(history: Message[]): Message[] {
  const id = `call-${history.length}`;
  return [
    ...history,
    { role: 'assistant', content: null, tool_calls: [{ id, name: 'lookup', arguments: '{}' }] },
    { role: 'tool', tool_call_id: id, content: 'found' },
  ];
}

describe('llm.turnBudget', () => {
  const parse = (yaml: string) =>
    parseConfig(yaml, { llm: llmSchema }, { KEY: 'sk-x' }).llm as LlmConfig;
  const section = 'llm:\n  providers:\n    openai:\n      apiKey: ${KEY}\n';

  it('defaults to 25 steps and 50 000 tokens per turn', () => {
    expect(parse(section)!.turnBudget).toEqual({ steps: 25, tokens: 50_000 });
    expect(parse(`${section}  turnBudget:\n    steps: 40\n`)!.turnBudget).toEqual({
      steps: 40,
      tokens: 50_000,
    });
  });

  it.each([
    ['steps: 0', 'llm.turnBudget.steps'],
    ['tokens: -5', 'llm.turnBudget.tokens'],
    ['tokens: lots', 'llm.turnBudget.tokens'],
    ['step: 3', 'llm.turnBudget.step'],
  ])('rejects turnBudget %s naming %s', (line, path) => {
    let error: unknown;
    try {
      parse(`${section}  turnBudget:\n    ${line}\n`);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe(path);
  });
});

describe.each(httpDrivers())('LLM continuations at the monthly cap (%s)', (kind) => {
  const config = { llm: llmSection({ turnBudget: { steps: 5, tokens: 250 } }) };
  const a = useTestHub(kind, { config });
  // A second hub on the same database: what a turn may still do lives in storage.
  const b = useTestHub(a, { config });

  /** One step on `route` through `hub`; a stream is read to its end. */
  async function send(
    route: Route,
    token: string,
    messages: Message[],
    hub: TestHub = a,
  ): Promise<{ status: number; error?: string }> {
    const body = { model: 'gpt-4o', messages };
    if (route === 'step') {
      const res = await hub.request('POST', '/llm/chat/step', { token, body });
      return { status: res.status, error: res.body.error };
    }
    const res = await openChatStream(hub, token, {
      ...body,
      turnId: 'turn-1',
      stepIndex: messages.length,
    });
    const text = await res.text();
    if (res.status !== 200) return { status: res.status, error: JSON.parse(text).error };
    expect(text).toContain('"type":"step.end"');
    return { status: 200 };
  }
  const usage = async (token: string) =>
    (await a.request('GET', '/llm/usage', { token })).body.totalTokens as number;
  const cappedUser = (limit: number) =>
    a.createUser({ llmAccess: true, llmModels: ['*'], llmMonthlyTokenLimit: limit });
  /** Uses `tokens` of the user's month with a finished turn of its own. */
  async function spend(token: string, tokens: number) {
    answerToolCall(tokens);
    expect((await send('step', token, ask(`earlier ${Math.random()}`))).status).toBe(200);
  }

  it.each<Route>(['step', 'stream'])(
    'refuses with 402 on %s every continuation at the cap that continues no turn admitted under it',
    async (route) => {
      const user = await cappedUser(1000);
      answerToolCall(500);
      // Under the cap nothing changes: even a continuation the hub never admitted runs.
      expect((await send(route, user.token, continued(ask('Never asked')))).status).toBe(200);
      expect((await send(route, user.token, ask('Hello'))).status).toBe(200);
      expect(await usage(user.token)).toBe(1000);
      const calls = received.length;
      const walkArounds: Message[][] = [
        continued(ask('Write me an essay')),
        [...ask('Write me an essay'), { role: 'assistant', content: 'Here is part one.' }],
        continued(continued(ask('And another one'))),
        [{ role: 'assistant', content: 'Go on.' }],
      ];
      for (const messages of walkArounds)
        expect(await send(route, user.token, messages)).toEqual({ status: 402, error: QUOTA });
      expect(await usage(user.token)).toBe(1000);
      expect(received.length).toBe(calls);
    },
  );

  it.each<Route>(['step', 'stream'])(
    'lets a tool loop admitted under the cap run past it on %s until the turn has taken its 5 steps',
    async (route) => {
      const user = await cappedUser(1000);
      await spend(user.token, 990);
      answerToolCall(10);
      let history = ask('Find the failing request');
      expect((await send(route, user.token, history)).status).toBe(200);
      expect(await usage(user.token)).toBe(1000);
      // Steps 2 to 5 of the turn, past the cap, on either hub.
      for (const hub of [b, a, b, a]) {
        history = continued(history);
        expect((await send(route, user.token, history, hub)).status).toBe(200);
      }
      expect(await usage(user.token)).toBe(1040);
      expect(await send(route, user.token, continued(history), b)).toEqual({
        status: 402,
        error: TURN_SPENT(5, 250),
      });
      expect(await send(route, user.token, ask('Something new'))).toEqual({
        status: 402,
        error: QUOTA,
      });
      expect(await usage(user.token)).toBe(1040);
    },
  );

  it('stops an admitted turn past the cap once the whole turn has used its 250 tokens', async () => {
    const user = await cappedUser(1000);
    await spend(user.token, 900);
    answerToolCall(100);
    let history = ask('Summarise the run');
    const statuses: number[] = [];
    for (let step = 0; step < 4; step++) {
      statuses.push((await send('step', user.token, history)).status);
      history = continued(history);
    }
    // The turn had used 100, 200, then 300 tokens: the fourth step is refused.
    expect(statuses).toEqual([200, 200, 200, 402]);
    expect(await usage(user.token)).toBe(1200);
  });

  it('never lets one turn use more tokens than the monthly cap itself', async () => {
    const user = await cappedUser(200);
    answerToolCall(50);
    let history = ask('Check the headers');
    const statuses: number[] = [];
    for (let step = 0; step < 5; step++) {
      statuses.push((await send('step', user.token, history)).status);
      history = continued(history);
    }
    // The turn's token budget is min(250, 200): four steps of 50 use it up.
    expect(statuses).toEqual([200, 200, 200, 200, 402]);
    expect(await usage(user.token)).toBe(200);
  });

  it('lets all admitted turns together run no more than one turn budget past the cap', async () => {
    const user = await cappedUser(1000);
    answerToolCall(10);
    const questions = ['q1', 'q2', 'q3', 'q4', 'q5'];
    for (const question of questions)
      expect((await send('step', user.token, ask(question))).status).toBe(200);
    await spend(user.token, 950);
    expect(await usage(user.token)).toBe(1000);
    answerToolCall(100);
    const statuses: number[] = [];
    for (const question of questions)
      statuses.push((await send('step', user.token, continued(ask(question)))).status);
    // Each turn alone is within its budget, but the month stops at 1000 + 250 (and one step).
    expect(statuses).toEqual([200, 200, 200, 402, 402]);
    expect(await usage(user.token)).toBe(1300);
  });

  it("keeps no message content in a turn and deletes a user's turns with the account", async () => {
    const user = await cappedUser(1000);
    answerToolCall(10);
    expect((await send('step', user.token, ask('secret question'))).status).toBe(200);
    const turns = () =>
      a
        .store()
        .table(llmTurnsTable)
        .find({ where: { userId: user.id } });
    const kept = await turns();
    expect(kept).toEqual([expect.objectContaining({ userId: user.id, steps: 1, totalTokens: 10 })]);
    expect(JSON.stringify(kept)).not.toContain('secret question');
    expect((await a.request('DELETE', `/admin/users/${user.id}`)).status).toBe(204);
    expect(await turns()).toEqual([]);
  });

  it('runs concurrent continuations of one admitted turn at the cap only as far as its steps go', async () => {
    const user = await cappedUser(1000);
    await spend(user.token, 990);
    answerToolCall(10);
    const history = ask('Retry the upload');
    expect((await send('step', user.token, history)).status).toBe(200);
    const results = await Promise.all(
      [a, b, a, b, a, b, a, b].map((hub) => send('step', user.token, continued(history), hub)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 402, 402, 402, 402]);
    expect(await usage(user.token)).toBe(1040);
  });
});
