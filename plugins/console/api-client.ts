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
  /** `GET path` of bytes (an image) as the session's user: its type and body; null for 404. */
  bytes(path: string): Promise<{ type: string; body: Uint8Array } | null>;
}

export interface ApiCaller {
  tenantId: string;
  /** The session token's sha256; null for a request that authenticates itself (sign-in). */
  tokenHash: string | null;
  headers?: Record<string, string>;
}

/** Runs one request for the page being served (`c`): its request id and client address go along. */
async function answer(
  c: Context<KernelEnv>,
  api: InProcessApi,
  clientIp: (c: Context<KernelEnv>) => string,
  caller: ApiCaller,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  const request = inProcessRequest(method, path, {
    tenant: caller.tenantId,
    requestId: c.get('requestId'),
    ...(body !== undefined ? { body } : {}),
    ...(caller.headers ? { headers: caller.headers } : {}),
  });
  return api.fetch(request, { tokenHash: caller.tokenHash, ip: clientIp(c) });
}

/** The refusal an answer that is not a success carries, as an {@link ApiError}. */
function refusalOf(response: Response, parsed: unknown): ApiError {
  const refusal = (parsed ?? {}) as { error?: string; code?: string };
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    refusal.error ?? `The hub answered ${response.status}.`,
    refusal.code ?? 'internal_error',
    Number.isFinite(retry) && retry > 0 ? retry : null,
    refusal,
  );
}

/** One request's JSON answer (null for 204); a refusal throws its {@link ApiError}. */
export async function callApi<T>(...args: Parameters<typeof answer>): Promise<T> {
  const response = await answer(...args);
  if (response.status === 204) return null as T;
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (response.ok) return parsed as T;
  throw refusalOf(response, parsed);
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
    async bytes(path) {
      const response = await answer(c, api, clientIp, caller, 'GET', path);
      if (response.status === 404) return null;
      if (!response.ok) {
        const text = await response.text();
        throw refusalOf(response, text ? JSON.parse(text) : null);
      }
      const type = response.headers.get('content-type') ?? 'application/octet-stream';
      return { type, body: new Uint8Array(await response.arrayBuffer()) };
    },
  };
}
