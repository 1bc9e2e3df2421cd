/** The LLM proxy records the tokens it counts against users on /metrics, by model and kind. */
import { describe, expect, it } from 'vitest';
import { httpDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import {
  answerWith,
  completion,
  llmSection,
  useProvider,
  userTurn,
} from '../helpers/llm-provider.ts';

useProvider();

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
