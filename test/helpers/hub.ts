/**
 * Test hubs: a real hub (real storage, real plugins) called through `app.request()`, with an admin
 * account and small helpers for JSON requests.
 */
import { validateConfig } from '../../kernel/config/load.ts';
import { createHub, type CreateHubOptions, type Hub } from '../../kernel/hub.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { UserInput, Role } from '../../kernel/identity/users.ts';
import { silentLogger } from '../../kernel/log.ts';
import type { PluginDefinition } from '../../kernel/plugin.ts';
import type { StorageDriver } from '../../kernel/storage/contract.ts';

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Raw body text (sent as JSON content type), for malformed-JSON tests. */
  rawBody?: string;
  headers?: Record<string, string>;
  tenant?: string;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestHub {
  hub: Hub;
  adminToken: string;
  adminId: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** Creates an account directly (no HTTP) and returns it with a token. */
  createUser(input: UserInput & { name?: string; role?: Role }, tenant?: string): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

let counter = 0;
/** A name no other test in this process uses. */
export function uniqueName(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface StartTestHubOptions extends Partial<Omit<CreateHubOptions, 'config' | 'driver'>> {
  driver: StorageDriver;
  /** server.yaml content as an object; validated like a real file. */
  config?: Record<string, unknown>;
  plugins?: readonly PluginDefinition<any>[];
  /** The client address every request appears to come from. @default 203.0.113.1 */
  ip?: string;
}

export async function startTestHub(options: StartTestHubOptions): Promise<TestHub> {
  const plugins = options.plugins ?? (await import('../../plugins/index.ts')).plugins;
  const sections = Object.fromEntries(plugins.filter((p) => p.config).map((p) => [p.config!.section, p.config!.schema]));
  const config = validateConfig({ logging: { level: 'silent' }, ...options.config }, sections, {});
  const ip = options.ip ?? '203.0.113.1';
  const hub = await createHub({
    log: silentLogger,
    clientIp: () => ip,
    migrate: true,
    ...options,
    config,
    plugins,
  });

  const createUser: TestHub['createUser'] = async (input, tenant = DEFAULT_TENANT_ID) => {
    const store = hub.driver().forTenant(tenant);
    const user = await hub.identity.users.create(store, { role: 'user', ...input, name: input.name ?? uniqueName() });
    const { secret } = await hub.identity.tokens.issue(store, user, 'test');
    return { id: user.id, token: secret };
  };
  const admin = await createUser({ name: uniqueName('admin'), role: 'admin' });

  const request: TestHub['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? admin.token : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (opts.tenant) headers['x-hub-tenant'] = opts.tenant;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await hub.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = null;
    if (text && response.headers.get('content-type')?.includes('application/json')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as any, text };
  };

  return { hub, adminToken: admin.token, adminId: admin.id, request, createUser, close: () => hub.close() };
}
