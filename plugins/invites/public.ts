/**
 * Public invitation routes: the `/join` page, and preview and redeem of a secret. Preview and
 * redeem are throttled per client address (`{ip}:invitation`) with the bearer-auth policy, so
 * guessing secrets gets a 429 just as guessing tokens does, and fails closed (503) without Redis.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { z } from 'zod';
import { HttpError } from '../../kernel/errors.ts';
import { perEntityList } from '../../kernel/identity/access.ts';
import { toTokenRecord } from '../../kernel/identity/tokens.ts';
import { createPluginApp, type KernelEnv, type PluginContext } from '../../kernel/plugin.ts';
import { renderJoinPage } from './join-page.ts';
import type { InvitesService } from './service.ts';
import { jsonBody } from '../../kernel/http/validate.ts';
import { safeName } from '../../kernel/text.ts';

const secret = z
  .string()
  .trim()
  .refine(
    (value) => value.startsWith('hbi_') && value.length > 12 && value.length <= 256,
    'Invalid invitation secret format.',
  );
const previewBody = z.object({ secret });
/**
 * The kernel's token-name rule (`normalizeTokenName`: trimmed, 1 to 255 code points, no control or
 * bidirectional-override characters), checked here so a bad name is a 400 naming `tokenName`
 * before the secret is spent.
 */
const tokenName = safeName(
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((value) => [...value].length <= 255, 'must be at most 255 characters'),
);
const redeemBody = z.object({ secret, tokenName: tokenName.optional() });

export function publicInviteRoutes(
  service: InvitesService,
  ctx: Pick<PluginContext<unknown>, 'throttle' | 'clientIp' | 'hubConfig'>,
) {
  const keyOf = (c: Context<KernelEnv>) => `${ctx.clientIp(c)}:invitation`;
  // Blocked clients are refused before their body is even read.
  const throttled = createMiddleware<KernelEnv>(async (c, next) => {
    await ctx.throttle.assertNotBlocked(keyOf(c));
    await next();
  });
  /** Counts unknown and unusable secrets (not malformed ones); a success clears the count. */
  const counted = async <T>(c: Context<KernelEnv>, work: () => Promise<T>): Promise<T> => {
    try {
      const result = await work();
      await ctx.throttle.reset(keyOf(c));
      return result;
    } catch (error) {
      if (error instanceof HttpError && (error.status === 404 || error.status === 410))
        await ctx.throttle.recordFailure(keyOf(c));
      throw error;
    }
  };

  return createPluginApp()
    .get('/join', (c) => {
      // A link may name another tenant only when this hub has tenants; whether that one exists
      // (and its name) only the preview tells, to someone holding a valid code.
      const served = (tenantId: string | undefined) =>
        tenantId === undefined ||
        tenantId === c.get('tenant').id ||
        ctx.hubConfig().multitenancy.enabled;
      const { html, headers } = renderJoinPage((name) => c.req.query(name), served);
      return c.html(html, 200, headers);
    })
    .post('/auth/invitations/preview', throttled, jsonBody(previewBody), async (c) => {
      const { invitation, user } = await counted(c, () =>
        service.preview(c.get('store'), c.req.valid('json').secret),
      );
      return c.json({
        user: {
          name: user.name,
          role: user.role,
          ...perEntityList((field) => user[field]),
          llmAccess: user.llmAccess,
          llmModels: user.llmModels,
        },
        expiresAt: invitation.expiresAt,
        hubName: c.get('tenant').name,
      });
    })
    .post('/auth/invitations/redeem', throttled, jsonBody(redeemBody), async (c) => {
      const { secret: code, tokenName } = c.req.valid('json');
      const { token, secret: tokenSecret } = await counted(c, () =>
        service.redeem(c.get('store'), code, tokenName),
      );
      return c.json({ token: toTokenRecord(token), secret: tokenSecret }, 201);
    });
}
