/**
 * Throttle check and bearer authentication for protected routes.
 *
 * Failures are counted per `{ip}:{sha256(token)}` (or `{ip}:none`) as the spec says. Because that
 * key changes with every guessed token, guessing alone would never trip it, so failures are also
 * counted per `{ip}:*` with a higher limit (`redis.maxFailuresPerIp`, 0 turns it off).
 *
 * An unreachable throttle store fails closed: its ThrottleUnavailableError is not caught here but
 * goes on to the error serializer (503) and to the outage log, which names Redis as the cause.
 */
import type { Context, Next } from 'hono';
import { createMiddleware } from 'hono/factory';
import { forbidden, HttpError, unauthorized } from '../errors.ts';
import type { KernelEnv } from '../plugin.ts';
import { unavailableDependency } from '../outage.ts';
import type { Identity } from '../identity/identity.ts';
import type { Authenticated } from '../identity/tokens.ts';
import { sha256Hex } from '../identity/secrets.ts';
import type { ThrottleGuard, ThrottlePolicy, ThrottleStore } from '../throttle/contract.ts';
import type { InProcessCaller } from './in-process.ts';

export interface AuthPolicy extends ThrottlePolicy {
  /** Failures from one address across all tokens before it is blocked; 0 disables. */
  maxFailuresPerIp: number;
}

const BEARER = /^Bearer\s+(\S+)$/i;

export function extractBearer(header: string | undefined): string | null {
  const match = header?.trim().match(BEARER);
  return match ? match[1]! : null;
}

function tooManyRequests(seconds: number): HttpError {
  return new HttpError(429, 'Too Many Requests', {
    headers: { 'Retry-After': String(Math.max(1, seconds)) },
  });
}

export interface AuthDeps {
  identity: Identity;
  throttle: () => ThrottleStore;
  policy: () => AuthPolicy;
  clientIp: (c: Parameters<Parameters<typeof createMiddleware<KernelEnv>>[0]>[0]) => string;
  /** Who a request the hub made in process acts as (`in-process.ts`); undefined for the network. */
  callerOf: (request: Request) => InProcessCaller | undefined;
  /** Told of each request refused for its key's block (blocked.ts learns its route). */
  refusedForBlock?: (c: Context<KernelEnv>) => void;
}

export function bearerAuth(deps: AuthDeps) {
  function signIn(c: Context<KernelEnv>, found: Authenticated): void {
    c.set('auth', found);
    // Recording use must never fail or slow the request.
    // A database outage is not logged here per request: kernel/outage.ts logs it once.
    deps.identity.tokens.touch(c.get('store'), found.token).catch((error) => {
      if (!unavailableDependency(error))
        c.get('log').warn('Could not record token use', { error: String(error) });
    });
  }

  /**
   * A request the hub made in process for a plugin acting as a signed-in user (the console): the
   * same token look-up as a bearer header, so revocation, expiry and a deleted user count at once.
   * Not throttled: the token was proven when the plugin's session began, and a token revoked
   * since is no guess.
   */
  async function asCaller(c: Context<KernelEnv>, hash: string, next: Next): Promise<void> {
    const found = await deps.identity.tokens.authenticateHash(c.get('store'), hash);
    if (!found) throw unauthorized();
    signIn(c, found);
    await next();
  }

  return createMiddleware<KernelEnv>(async (c, next) => {
    const caller = deps.callerOf(c.req.raw);
    if (caller?.tokenHash) return asCaller(c, caller.tokenHash, next);
    const throttle = deps.throttle();
    const policy = deps.policy();
    const ip = deps.clientIp(c);
    const secret = extractBearer(c.req.header('authorization'));
    const hash = secret ? sha256Hex(secret) : null;
    const key = hash ? `${ip}:${hash}` : `${ip}:none`;
    const ipKey = `${ip}:*`;

    // The spec's key decides first: a blocked token (or token-less client) gets 429.
    const status = await throttle.status(key);
    if (status.blockedFor > 0) {
      deps.refusedForBlock?.(c);
      throw tooManyRequests(status.blockedFor);
    }

    // The per-address block only stops failing attempts: a valid token still gets in from a
    // blocked address, so guessing from a shared (proxy, NAT) address cannot lock everyone out.
    const fail = async (): Promise<never> => {
      if (policy.maxFailuresPerIp > 0) {
        const ipBlocked = await throttle.blockedFor(ipKey);
        if (ipBlocked > 0) throw tooManyRequests(ipBlocked);
      }
      await throttle.recordFailure(key, policy);
      if (policy.maxFailuresPerIp > 0)
        await throttle.recordFailure(ipKey, { ...policy, maxFailures: policy.maxFailuresPerIp });
      throw unauthorized();
    };

    if (!hash) return fail();
    const found = await deps.identity.tokens.authenticateHash(c.get('store'), hash);
    if (!found) return fail();
    if (status.hasFailures) await throttle.reset(key);
    signIn(c, found);
    await next();
  });
}

/** The {@link ThrottleGuard} plugins get, on bearer auth's store and policy. */
export function throttleGuard(deps: Pick<AuthDeps, 'throttle' | 'policy'>): ThrottleGuard {
  return {
    async assertNotBlocked(key) {
      const blocked = await deps.throttle().blockedFor(key);
      if (blocked > 0) throw tooManyRequests(blocked);
    },
    async recordFailure(key, scale = 1) {
      const { maxFailures, windowSeconds, blockSeconds } = deps.policy();
      await deps
        .throttle()
        .recordFailure(key, { maxFailures: maxFailures * scale, windowSeconds, blockSeconds });
    },
    reset: (key) => deps.throttle().reset(key),
  };
}

/** `/admin/*` is for admin-role accounts only. */
export const requireAdmin = createMiddleware<KernelEnv>(async (c, next) => {
  if (c.get('auth').user.role !== 'admin') throw forbidden('Admin role required.');
  await next();
});
