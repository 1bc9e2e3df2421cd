/**
 * Latency the hub adds to a chat step: 2000 sequential `POST /llm/chat/step` through `app.request`
 * (auth, validation, quota check, metering on the embedded SQLite database) against a provider mocked by msw that answers
 * at once, compared with the same `openai` call made directly against that mock.
 * Run: npx tsx bench/llm-overhead.ts [steps]
 */
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { EMBEDDED_DRIVER, openTestDriver } from '../test/helpers/drivers.ts';
import { startTestHub } from '../test/helpers/hub.ts';

const STEPS = Number(process.argv[2] ?? 2000);
const BASE_URL = 'https://llm.bench/v1';
const answer = {
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};
const server = setupServer(
  http.post(`${BASE_URL}/chat/completions`, () => HttpResponse.json(answer)),
);
server.listen({ onUnhandledRequest: 'error' });

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
async function measure(
  label: string,
  run: () => Promise<void>,
): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 100; i++) await run(); // warm-up: JIT, connection and statement caches
  const times: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((x, y) => x - y);
  const result = { p50: percentile(times, 50), p99: percentile(times, 99) };
  console.log(
    `${label}: p50 ${result.p50.toFixed(3)} ms, p99 ${result.p99.toFixed(3)} ms over ${STEPS}`,
  );
  return result;
}

const db = await openTestDriver(EMBEDDED_DRIVER);
const t = await startTestHub({
  driver: db.driver,
  config: { llm: { providers: { openai: { apiKey: 'sk-bench', baseUrl: BASE_URL } } } },
});
const user = await t.createUser({
  llmAccess: true,
  llmModels: ['*'],
  llmMonthlyTokenLimit: 1_000_000_000,
});
const uncapped = await t.createUser({ llmAccess: true, llmModels: ['*'] });
const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] });
const headers = { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' };
const client = new OpenAI({
  apiKey: 'sk-bench',
  baseURL: BASE_URL,
  maxRetries: 0,
  fetch: (url, init) => globalThis.fetch(url, init),
});

const direct = await measure('direct openai -> msw', async () => {
  await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Hello' }],
  });
});
const step = (token: string) => async () => {
  const res = await t.hub.app.request('/llm/chat/step', {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${token}` },
    body,
  });
  if (res.status !== 200) throw new Error(`step failed: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
};
// A capped user's new turn also takes and releases the turn lease (one more transaction).
for (const [label, token] of [
  ['hub step, uncapped user', uncapped.token],
  ['hub step, capped user', user.token],
] as const) {
  const viaHub = await measure(label, step(token));
  console.log(
    `  hub adds: p50 ${(viaHub.p50 - direct.p50).toFixed(3)} ms, p99 ${(viaHub.p99 - direct.p99).toFixed(3)} ms`,
  );
}
await t.close();
await db.cleanup();
server.close();
