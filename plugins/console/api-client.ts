/**
 * The API as a console page uses it: requests run in process through the hub's own pipeline
 * (`kernel/http/in-process.ts`), acting with the session's token, so a page can do exactly what
 * the signed-in user could do with curl, under the same rules. An answer that is not a success
 * becomes an {@link ApiError} carrying the API's own message and code.
 */
import type { Context } from 'hono';
import { inProcessRequest, type InProcessApi } from '../../kernel/http/in-process.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';

/** A refusal of the API: its status, message (`field: what is wrong`) and stable code. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** `Retry-After` of a 429 or 503, in seconds. */
  readonly retryAfter: number | null;
  /** The whole JSON answer (some refusals carry more than the message, e.g. `/readyz`'s checks). */
  readonly body: Readonly<Record<string, unknown>>;
  constructor(
    status: number,
    message: string,
    code: string,
    retryAfter: number | null = null,
    body: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.body = body;
  }

  /** The request field the message names (`name: must not be empty` names `name`), if any. */
  get field(): string | null {
    return /^([A-Za-z][\w.]*): /.exec(this.message)?.[1] ?? null;
  }
}

export interface ConsoleApi {
  /** `GET path` as the session's user; the JSON answer. */
  get<T = any>(path: string): Promise<T>;
  /** A write as the session's user; the JSON answer (null for 204). */
  send<T = any>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T>;
}

export interface ApiCaller {
  tenantId: string;
  /** The session token's sha256; null for a request that authenticates itself (sign-in). */
  tokenHash: string | null;
  headers?: Record<string, string>;
}

/** Runs one request for the page being served (`c`): its request id and client address go along. */
export async function callApi<T>(
  c: Context<KernelEnv>,
  api: InProcessApi,
  clientIp: (c: Context<KernelEnv>) => string,
  caller: ApiCaller,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const request = inProcessRequest(method, path, {
    tenant: caller.tenantId,
    requestId: c.get('requestId'),
    ...(body !== undefined ? { body } : {}),
    ...(caller.headers ? { headers: caller.headers } : {}),
  });
  const response = await api.fetch(request, { tokenHash: caller.tokenHash, ip: clientIp(c) });
  if (response.status === 204) return null as T;
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (response.ok) return parsed as T;
  const refusal = (parsed ?? {}) as { error?: string; code?: string };
  const retry = Number(response.headers.get('retry-after'));
  throw new ApiError(
    response.status,
    refusal.error ?? `The hub answered ${response.status}.`,
    refusal.code ?? 'internal_error',
    Number.isFinite(retry) && retry > 0 ? retry : null,
    refusal,
  );
}

/** The API as the session's user, for one page. */
export function consoleApi(
  c: Context<KernelEnv>,
  api: InProcessApi,
  clientIp: (c: Context<KernelEnv>) => string,
  caller: ApiCaller,
): ConsoleApi {
  return {
    get: (path) => callApi(c, api, clientIp, caller, 'GET', path),
    send: (method, path, body) => callApi(c, api, clientIp, caller, method, path, body),
  };
}
