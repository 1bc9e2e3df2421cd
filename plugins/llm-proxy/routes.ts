/**
 * The LLM routes: models (the caller's and the admin's unfiltered list), usage, and one chat step.
 * Check order, as the desktop client expects: 503 when the `llm` section is absent, 403 without
 * `llmAccess`, 400 for a bad body, 403 for a model not offered or not allowed, 402 over the cap.
 */
import type { Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Clock } from '../../kernel/clock.ts';
import { forbidden, notConfigured } from '../../kernel/errors.ts';
import { hasAccess } from '../../kernel/identity/access.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { capabilitiesOf, offeredModels, type LlmConfig, type ModelEntry } from './config.ts';
import { chatStepBody, type ChatStepBody } from './schemas.ts';
import { completeStep, upstreamFailure, type ProviderClients } from './upstream.ts';
import { turnKeyOf } from './turns.ts';
import { admitStep, monthTotal, recordStep, type Admission, type StepUsage } from './usage.ts';
import { jsonBody, validate } from '../../kernel/http/validate.ts';
import { idsQuery } from '../../kernel/http/params.ts';
import { llmUsageTable, periodOf, usageId } from './tables.ts';
import { z } from 'zod';

export const NOT_CONFIGURED = 'LLM support is not configured on this hub.';

export interface LlmDeps {
  config(): LlmConfig;
  clients: ProviderClients;
  clock: Clock;
  /** Storage of the live database (not the request's), so a step that outlives a db reload counts there. */
  storage(tenantId: string): Store;
  /** Counts tokens a step used, by model and kind (prompt, completion), for `/metrics`. */
  countTokens?(model: string, usage: StepUsage): void;
}

/**
 * 503 when LLM support is off. On `/admin/llm/models` it runs after authentication and the admin
 * role check (401 and 403 first), so the probe tells nothing to a caller without an admin token.
 */
function requireConfigured(deps: LlmDeps) {
  return createMiddleware<KernelEnv>(async (_c, next) => {
    if (!deps.config()) throw notConfigured(NOT_CONFIGURED);
    await next();
  });
}

/** 503 when off, then 403 for a caller without `llmAccess`. */
export function requireLlm(deps: LlmDeps) {
  return createMiddleware<KernelEnv>(async (c, next) => {
    if (!deps.config()) throw notConfigured(NOT_CONFIGURED);
    if (!c.get('auth').user.llmAccess)
      throw forbidden('LLM access is not enabled for your account (llmAccess).');
    await next();
  });
}

/** Everything a step needs once the request is accepted. */
export interface PreparedStep {
  section: NonNullable<LlmConfig>;
  model: ModelEntry;
  isNewTurn: boolean;
  store: Store;
  admission: Admission;
  /** Counts the step's usage against the caller's month and logs it (both step routes use this). */
  count(
    answer: { usage: StepUsage; toolCalls: readonly unknown[] },
    streamed: boolean,
  ): Promise<void>;
}

/**
 * Resolves the model, checks the user may use it, and admits the step under the monthly cap (402
 * for a new turn at the cap, and for a continuation at the cap unless it continues a turn admitted
 * under it within `llm.turnBudget`; see usage.ts).
 */
export async function prepareStep(
  deps: LlmDeps,
  c: Context<KernelEnv>,
  body: ChatStepBody,
): Promise<PreparedStep> {
  // Read once: a reload during the step must not mix two configurations.
  const section = deps.config();
  if (!section) throw notConfigured(NOT_CONFIGURED);
  const user = c.get('auth').user;
  const model = offeredModels(section).find((entry) => entry.id === body.model);
  if (!model) throw forbidden('Model is not offered by this hub.');
  if (!hasAccess(user, 'llmModels', model.id))
    throw forbidden('You are not allowed to use this model.');
  const isNewTurn = body.messages.at(-1)!.role === 'user';
  const store = deps.storage(c.get('tenant').id);
  const admission = await admitStep(store, deps.clock, user, {
    isNewTurn,
    turnKey: user.llmMonthlyTokenLimit === null ? null : turnKeyOf(user.id, body.messages),
    budget: section.turnBudget,
    leaseMs: section.timeoutMs + 5_000,
    signal: c.req.raw.signal,
  });
  const tokenId = c.get('auth').token.id;
  const messageCount = body.messages.length;
  const count: PreparedStep['count'] = async (answer, streamed) => {
    await recordStep(store, deps.clock, {
      user,
      tokenId,
      model: model.id,
      provider: model.provider,
      usage: answer.usage,
      isNewTurn,
      hadToolCalls: answer.toolCalls.length > 0,
      messageCount,
      streamed,
      turnId: admission.turnId,
    });
    deps.countTokens?.(model.id, answer.usage);
  };
  return { section, model, isNewTurn, store, admission, count };
}

function modelsResponse(section: NonNullable<LlmConfig>, visible: (model: ModelEntry) => boolean) {
  return { models: offeredModels(section).filter(visible), capabilities: capabilitiesOf(section) };
}

/** `GET /admin/llm/usage`: the users whose month totals are asked for. */
const adminUsageQuery = z.strictObject({
  userIds: idsQuery().describe('The users, comma-separated (at most 100)'),
});

/** Mounts the models, usage and step routes. */
export function llmRoutes(app: Hono<KernelEnv>, deps: LlmDeps): void {
  const gate = requireLlm(deps);

  app.get('/llm/models', gate, (c) => {
    const user = c.get('auth').user;
    return c.json(
      modelsResponse(deps.config()!, (model) => hasAccess(user, 'llmModels', model.id)),
    );
  });

  app.get('/admin/llm/models', requireConfigured(deps), (c) =>
    c.json(modelsResponse(deps.config()!, () => true)),
  );

  app.get('/llm/usage', gate, async (c) => {
    const user = c.get('auth').user;
    const { period, totalTokens } = await monthTotal(
      deps.storage(c.get('tenant').id),
      deps.clock,
      user.id,
    );
    return c.json({ period, totalTokens, limit: user.llmMonthlyTokenLimit });
  });

  // Usage is kept whether or not LLM support is on now, so this answers either way.
  app.get('/admin/llm/usage', validate('query', adminUsageQuery), async (c) => {
    const period = periodOf(deps.clock.now());
    const ids = c.req.valid('query').userIds;
    const rows = await deps
      .storage(c.get('tenant').id)
      .table(llmUsageTable)
      .getMany(ids.map((id) => usageId(id, period)));
    const totals = new Map(rows.map((row) => [row.userId, row.totalTokens]));
    return c.json({
      period,
      users: ids.map((userId) => ({ userId, totalTokens: totals.get(userId) ?? 0 })),
    });
  });

  app.post('/llm/chat/step', gate, jsonBody(chatStepBody), async (c) => {
    const body = c.req.valid('json');
    const step = await prepareStep(deps, c, body);
    try {
      const client = deps.clients.get(step.section, step.model.provider);
      const answer = await completeStep(client, body, c.req.raw.signal).catch((error: unknown) => {
        throw upstreamFailure(error, step.model.provider, step.section);
      });
      await step.count(answer, false);
      return c.json(answer);
    } finally {
      await step.admission.release();
    }
  });
}
