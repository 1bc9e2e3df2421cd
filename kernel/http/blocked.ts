/**
 * Known refusals: a GET that bearer auth would refuse with 429 because its throttle key is
 * blocked, answered by a runtime that writes answers itself (runtime/node.ts, through the edge's
 * `answerFixed`) before the app runs. A client retrying a blocked token is the commonest refused
 * request, and the app's way there (the adapter's `Request`, tenant resolution, routing, the
 * throttle's promise, the error serializer) cost it more than the refusal itself.
 *
 * The answer is the app's, byte for byte, and is given only where the app's would certainly be the
 * same: a path that bearer auth has already refused once for a block (so the path is routed, reaches
 * authentication and has this route template), no tenant header (the default tenant, held by the
 * tenant cache), no body, a plain path, and a key the throttle store knows to be blocked without
 * asking (`ThrottleStore.knownBlock`: the Redis store's memory of a block it read under a second
 * ago, the in-process store's own). Everything else goes the whole way. Failures are never counted
 * here: a blocked key's requests are not counted by the app either.
 */
import type { Context } from 'hono';
import { errorBody } from '../errors.ts';
import { sha256Hex } from '../identity/secrets.ts';
import { DEFAULT_TENANT_ID } from '../identity/tenants.ts';
import type { KernelEnv } from '../plugin.ts';
import type { ThrottleStore } from '../throttle/contract.ts';
import { routeTemplate } from './access-log.ts';
import { extractBearer } from './auth.ts';
import { clientAddress, type HeaderOf } from './client-address.ts';
import type { TenantCache } from './tenant.ts';

/** An answer a runtime writes itself: a fixed one (edge.ts) or a known refusal. */
export interface RuntimeAnswer {
  /** The route template the metrics and the access line name. */
  route: string;
  status: number;
  body: string;
  /** The body's length in bytes. */
  bytes: number;
  headers: Record<string, string>;
  /** The tenant the access line names (the app's would name one after tenant resolution). */
  tenant?: string;
}

/**
 * Path segments of letters, digits, `_`, `-`, `~` and `.` (never a whole `.` or `..` segment): a
 * path the URL parser and the router both take exactly as sent, so the path a refusal was learned
 * from and the target a runtime sees are compared as the same string.
 */
const PLAIN_PATH = /^(?:\/[\w~-][\w.~-]*)+\/?$/;

/** Paths remembered at most; more are simply answered by the app. */
const MAX_PATHS = 1_000;

const TOO_MANY = JSON.stringify(errorBody('Too Many Requests', 'rate_limited'));
const TOO_MANY_BYTES = Buffer.byteLength(TOO_MANY);

export interface KnownRefusals {
  /** Bearer auth refused this request for its key's block: remember its path's route. */
  learn(c: Context<KernelEnv>): void;
  /** The app's refusal of a GET of `path`, when it is certain without the app; else undefined. */
  refusal(
    path: string,
    header: HeaderOf,
    peer: () => string | undefined,
  ): RuntimeAnswer | undefined;
}

export function knownRefusals(deps: {
  throttle: () => ThrottleStore;
  trustProxy: () => boolean;
  tenants: TenantCache;
}): KnownRefusals {
  const routes = new Map<string, string>();
  return {
    learn(c) {
      if (c.req.method !== 'GET' || routes.size >= MAX_PATHS) return;
      const path = c.req.path;
      if (PLAIN_PATH.test(path) && !routes.has(path)) routes.set(path, routeTemplate(c));
    },
    refusal(path, header, peer) {
      const route = routes.get(path);
      if (route === undefined) return undefined;
      const knownBlock = deps.throttle().knownBlock;
      // A tenant header is checked (400, 404) and a body limited (413) before authentication.
      if (
        !knownBlock ||
        header('x-hub-tenant') !== undefined ||
        header('x-harbor-tenant') !== undefined ||
        header('content-length') !== undefined ||
        header('transfer-encoding') !== undefined
      )
        return undefined;
      const tenant = deps.tenants.peek(DEFAULT_TENANT_ID);
      if (!tenant) return undefined;
      const secret = extractBearer(header('authorization'));
      const ip = clientAddress(deps.trustProxy(), header, peer);
      const seconds = knownBlock(secret ? `${ip}:${sha256Hex(secret)}` : `${ip}:none`);
      if (seconds <= 0) return undefined;
      return {
        route,
        status: 429,
        body: TOO_MANY,
        bytes: TOO_MANY_BYTES,
        headers: { 'Retry-After': String(seconds), 'Content-Type': 'application/json' },
        tenant: tenant.id,
      };
    },
  };
}
