/**
 * Metering integrity: usage numbers from the provider are clamped to whole, non-negative, safe
 * integers (a provider cannot lower a user's total or make a finished step fail), and a step's
 * month total and its log row are written together or not at all.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../kernel/clock.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { Table } from '../../kernel/storage/table.ts';
import { llmUsageLogTable } from '../../plugins/llm-proxy/tables.ts';
import { monthTotal, recordStep } from '../../plugins/llm-proxy/usage.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import {
  answerWith,
  chunk,
  completion,
  llmSection,
  streamWith,
  useProvider,
  userTurn,
} from '../helpers/llm-provider.ts';

useProvider();

describe('LLM usage integrity', () => {
  const t = useTestHub(EMBEDDED_DRIVER, { config: { llm: llmSection() } });

  const usage = async (token: string) =>
    (await t.request('GET', '/llm/usage', { token })).body.totalTokens as number;
  const logOf = (userId: string) =>
    t.driver.forTenant(DEFAULT_TENANT_ID).table(llmUsageLogTable).find({ where: { userId } });
  /** One step whose provider answer reports these token counts. */
  const stepReporting = (
    token: string,
    prompt: number,
    completionTokens: number,
    total: number,
  ) => {
    answerWith(
      completion(
        { content: 'ok' },
        { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: total },
      ),
    );
    return t.request('POST', '/llm/chat/step', { token, body: userTurn() });
  };

  it('clamps negative and fractional provider usage instead of failing or lowering the total', async () => {
    const user = await t.createUser({ llmAccess: true, llmModels: ['*'] });
    expect((await stepReporting(user.token, 4, 3, 7)).status).toBe(200);
    expect(await usage(user.token)).toBe(7);

    // Negative counts become 0: the month total never goes down.
    const negative = await stepReporting(user.token, -50, -1, -1000);
    expect(negative.status).toBe(200);
    expect(negative.body.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(await usage(user.token)).toBe(7);

    // Fractions round up, and the total is at least prompt + completion.
    const fractional = await stepReporting(user.token, 2.2, 1.5, 0.5);
    expect(fractional.status).toBe(200);
    expect(fractional.body.usage).toEqual({ promptTokens: 3, completionTokens: 2, totalTokens: 5 });
    expect(await usage(user.token)).toBe(12);
    expect((await logOf(user.id)).map((row) => row.totalTokens).sort((a, b) => a - b)).toEqual([
      0, 5, 7,
    ]);
  });

  it('caps huge provider usage at Number.MAX_SAFE_INTEGER, also on a stream', async () => {
    const user = await t.createUser({ llmAccess: true, llmModels: ['*'] });
    const huge = await stepReporting(user.token, 1e30, 1, 1e300);
    expect(huge.status).toBe(200);
    expect(huge.body.usage).toEqual({
      promptTokens: Number.MAX_SAFE_INTEGER,
      completionTokens: 1,
      totalTokens: Number.MAX_SAFE_INTEGER,
    });

    const other = await t.createUser({ llmAccess: true, llmModels: ['*'] });
    streamWith([
      chunk({ role: 'assistant', content: 'x' }),
      chunk({}, { prompt_tokens: -3, completion_tokens: 0.5, total_tokens: 1e300 }),
    ]);
    const res = await t.request('POST', '/llm/chat/stream', {
      token: other.token,
      body: { ...userTurn(), turnId: 'huge', stepIndex: 0 },
    });
    const frames = [...res.text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(frames.at(-1)).toMatchObject({
      type: 'step.end',
      usage: { promptTokens: 0, completionTokens: 1, totalTokens: Number.MAX_SAFE_INTEGER },
    });
    expect(await usage(other.token)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('counts a step and logs it in one transaction: a failed log insert leaves the total unchanged', async () => {
    const user = await t.createUser({ llmAccess: true, llmModels: ['*'] });
    const store = t.driver.forTenant(DEFAULT_TENANT_ID);
    const record = {
      user: { id: user.id } as UserRow,
      tokenId: null,
      model: 'gpt-4o',
      provider: 'openai',
      usage: { promptTokens: 2, completionTokens: 3, totalTokens: 5 },
      isNewTurn: true,
      hadToolCalls: false,
      messageCount: 1,
      streamed: false,
    };
    await recordStep(store, systemClock, record);
    expect((await monthTotal(store, systemClock, user.id)).totalTokens).toBe(5);

    await expect(recordStep(withFailingLogInsert(store), systemClock, record)).rejects.toThrow(
      'log insert failed',
    );
    expect((await monthTotal(store, systemClock, user.id)).totalTokens).toBe(5);
    expect(await logOf(user.id)).toHaveLength(1);
  });
});

/** The store, except that inserting into the usage log fails (also inside transactions). */
function withFailingLogInsert(store: Store): Store {
  return {
    tenantId: store.tenantId,
    context: store.context,
    table<T extends Table>(table: T) {
      const api = store.table(table);
      if (table !== (llmUsageLogTable as Table)) return api;
      return new Proxy(api, {
        get(target, prop) {
          if (prop === 'insert') return async () => Promise.reject(new Error('log insert failed'));
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
    transaction: (fn) => store.transaction((tx) => fn(withFailingLogInsert(tx))),
    insertAll: (batches) => store.insertAll(batches),
  };
}
