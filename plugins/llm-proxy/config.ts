/**
 * The `llm` section of server.yaml and the model catalog. A provider is any OpenAI-compatible
 * `/chat/completions` server: the three hosted ones by default, or a local model server or gateway
 * through `baseUrl`. The models the hub offers are the catalog entries whose provider has a key,
 * narrowed by the optional `models` allow-list.
 */
import { z } from 'zod';
import { secret } from '../../kernel/config/secrets.ts';

/** Provider names the desktop client accepts in a catalog entry. */
export const PROVIDERS = ['openai', 'claude', 'gemini'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** A model the hub can offer: what `GET /llm/models` lists. */
export interface ModelEntry {
  id: string;
  label: string;
  provider: Provider;
}

/** Where each provider's OpenAI-compatible endpoint lives when `baseUrl` is not given. */
export const DEFAULT_BASE_URLS: Record<Provider, string> = {
  openai: 'https://api.openai.com/v1',
  claude: 'https://api.anthropic.com/v1',
  gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
};

/** The built-in catalog; `llm.catalog` adds entries (e.g. the models of a local server). */
export const BUILT_IN_MODELS: readonly ModelEntry[] = [
  { id: 'gpt-4o', label: 'GPT-4o', provider: 'openai' },
  { id: 'gpt-4o-mini', label: 'GPT-4o Mini', provider: 'openai' },
  { id: 'claude-3-5-sonnet-20241022', label: 'Claude 3.5 Sonnet', provider: 'claude' },
  { id: 'claude-3-5-haiku-20241022', label: 'Claude 3.5 Haiku', provider: 'claude' },
  { id: 'gemini-1.5-pro', label: 'Gemini 1.5 Pro', provider: 'gemini' },
  { id: 'gemini-1.5-flash', label: 'Gemini 1.5 Flash', provider: 'gemini' },
];

const providerSchema = z.strictObject({
  /** The key sent as `Authorization: Bearer`; use `${ENV}` rather than writing it in the file. */
  apiKey: secret(z.string().min(1, 'must not be empty')),
  /** OpenAI-compatible base URL (ending before `/chat/completions`). @default the provider's own */
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
});

const modelEntrySchema = z.strictObject({
  id: z.string().trim().min(1).max(128),
  label: z.string().trim().min(1).max(128),
  provider: z.enum(PROVIDERS),
});

export const llmSchema = z
  .strictObject({
    providers: z.strictObject({
      openai: providerSchema.optional(),
      claude: providerSchema.optional(),
      gemini: providerSchema.optional(),
    }),
    /** Allow-list of model ids; absent means every catalog model whose provider has a key. */
    models: z.array(z.string().trim().min(1)).optional(),
    /** Extra catalog entries, for models the built-in list does not know. @default [] */
    catalog: z.array(modelEntrySchema).default([]),
    /** Milliseconds one upstream call may take before the step fails with 502. @default 120000 */
    timeoutMs: z.coerce.number().int().min(1000).max(600_000).default(120_000),
    /**
     * How far a turn started under a user's monthly cap may run once the cap is reached: its
     * tool continuations still run while the whole turn (the step that started it included) has
     * taken fewer than `steps` steps and used fewer than `tokens` tokens (never more than the
     * user's cap). Everything else at the cap gets 402. Users under their cap never meet it.
     */
    turnBudget: z
      .strictObject({
        /** Steps one turn may take in all. @default 25 */
        steps: z.coerce.number().int().min(1).max(1000).default(25),
        /** Tokens one turn may use in all. @default 50000 */
        tokens: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(50_000),
      })
      .default({ steps: 25, tokens: 50_000 }),
  })
  .superRefine((section, ctx) => {
    const configured = PROVIDERS.filter((name) => section.providers[name]);
    if (configured.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['providers'],
        message: 'must include at least one provider with an apiKey',
      });
      return;
    }
    const known = new Set(
      catalogOf(section)
        .filter((m) => configured.includes(m.provider))
        .map((m) => m.id),
    );
    section.models?.forEach((id, index) => {
      if (!known.has(id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['models', index],
          message: `"${id}" is not a catalog model of a configured provider`,
        });
      }
    });
  })
  .optional();

export type LlmConfig = z.output<typeof llmSchema>;
type LlmSection = NonNullable<LlmConfig>;

/** Built-in entries plus `llm.catalog`; a configured entry replaces a built-in one with the same id. */
function catalogOf(section: Pick<LlmSection, 'catalog'>): ModelEntry[] {
  const byId = new Map<string, ModelEntry>(BUILT_IN_MODELS.map((m) => [m.id, m]));
  for (const entry of section.catalog) byId.set(entry.id, entry);
  return [...byId.values()];
}

/** The models this hub offers: catalog ∩ providers with a key ∩ the allow-list when set. */
export function offeredModels(section: LlmSection): ModelEntry[] {
  const allowed = section.models ? new Set(section.models) : null;
  return catalogOf(section).filter(
    (m) => section.providers[m.provider] && (!allowed || allowed.has(m.id)),
  );
}

/** `capabilities` of the models routes: whether the OpenAI provider has a key. */
export function capabilitiesOf(section: LlmSection): { openai: boolean } {
  return { openai: !!section.providers.openai };
}
