/**
 * Test hubs: a real hub (real storage, real plugins) called through `app.request()`, with an admin
 * account and small helpers for JSON requests; `useTestHub` gives a describe block one hub on a
 * fresh test database for all its tests. Every answer `request` receives is checked against the
 * hub's own `/openapi.json` (`contract.ts`).
 */
import { afterAll, beforeAll } from 'vitest';
import { validateConfig } from '../../kernel/config/load.ts';
import { servedApiDocument } from '../../kernel/http/api-docs.ts';
import { createHub, type CreateHubOptions, type Hub } from '../../kernel/hub.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { UserInput, Role } from '../../kernel/identity/users.ts';
import { silentLogger } from '../../kernel/log.ts';
import type { PluginDefinition } from '../../kernel/plugin.ts';
import type { DbConfig } from '../../kernel/storage/config.ts';
import type { Store, StorageDriver } from '../../kernel/storage/contract.ts';
import { answerChecker, newAnswerStats, writeAnswerStats, type AnswerCheck } from './contract.ts';
import type { TestDatabase } from './databases.ts';
import { openTestDriver, type DriverKind, type TestDriver } from './drivers.ts';

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Raw body text (sent as JSON content type), for malformed-JSON tests. */
  rawBody?: string;
  headers?: Record<string, string>;
  tenant?: string;
  /**
   * `false` skips checking the answer against the hub's `/openapi.json` (test/helpers/contract.ts).
   * Only for requests deliberately sent to routes that no API document covers. @default true
   */
  contract?: boolean;
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
  request<T = any>(
    method: string,
    path: string,
    options?: RequestOptions,
  ): Promise<TestResponse<T>>;
  /** Creates an account directly (no HTTP) and returns it with a token. */
  createUser(
    input: UserInput & { name?: string; role?: Role },
    tenant?: string,
  ): Promise<{ id: string; token: string }>;
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
  const sections = Object.fromEntries(
    plugins.filter((p) => p.config).map((p) => [p.config!.section, p.config!.schema]),
  );
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
    const user = await hub.identity.users.create(store, {
      role: 'user',
      ...input,
      name: input.name ?? uniqueName(),
    });
    const { secret } = await hub.identity.tokens.issue(store, user, 'test');
    return { id: user.id, token: secret };
  };
  const admin = await createUser({ name: uniqueName('admin'), role: 'admin' });

  // Every answer is checked against the hub's own API document (read, not requested, so that no
  // request of the harness shows in a test's access log or metrics).
  let check: AnswerCheck | undefined;
  const stats = newAnswerStats();
  const request: TestHub['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? admin.token : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (opts.tenant) headers['x-hub-tenant'] = opts.tenant;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await hub.app.request(path, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    let parsed: unknown = null;
    if (text && response.headers.get('content-type')?.includes('application/json'))
      parsed = JSON.parse(text);
    const answer = {
      status: response.status,
      headers: response.headers,
      body: parsed as any,
      text,
    };
    if (opts.contract === false) stats.skipped += 1;
    else {
      check ??= answerChecker(servedApiDocument(hub.app));
      stats.operations.add(check(method, path, answer));
      stats.checked += 1;
      if (answer.status >= 400) stats.errors += 1;
    }
    return answer;
  };

  return {
    hub,
    adminToken: admin.token,
    adminId: admin.id,
    request,
    createUser,
    close: async () => {
      writeAnswerStats(stats);
      await hub.close();
    },
  };
}

/** Starts a hub for `run` and closes it afterwards, whatever `run` does. */
export async function withTestHub<T>(
  options: StartTestHubOptions,
  run: (t: TestHub) => Promise<T>,
): Promise<T> {
  const t = await startTestHub(options);
  try {
    return await run(t);
  } finally {
    await t.close();
  }
}

/** A test database and driver for the enclosing describe block; read its getters inside tests. */
export interface UsedTestDriver {
  readonly kind: DriverKind;
  readonly driver: StorageDriver;
  readonly database: TestDatabase;
}

/**
 * Opens a driver on a new `kind` database before the block's tests (beforeAll) and closes and drops
 * it after them (afterAll). `connect` may change the config the driver opens with.
 */
export function useTestDriver(
  kind: DriverKind,
  connect?: (config: DbConfig) => DbConfig | Promise<DbConfig>,
): UsedTestDriver {
  let db: TestDriver | undefined;
  beforeAll(async () => {
    db = await openTestDriver(kind, connect);
  });
  afterAll(async () => {
    await db?.cleanup();
  });
  const opened = () => db ?? notYet('test driver');
  return {
    kind,
    get driver() {
      return opened().driver;
    },
    get database() {
      return opened().database;
    },
  };
}

/** A hub for the enclosing describe block: a {@link TestHub} whose getters read the started hub. */
export interface UsedTestHub extends TestHub, UsedTestDriver {
  /** A tenant's store (the default tenant's unless named), for direct reads and writes. */
  store(tenant?: string): Store;
}

export type TestHubOptions = Partial<Omit<StartTestHubOptions, 'driver'>>;

/**
 * Starts one hub for the enclosing describe block (beforeAll) and closes it after its tests
 * (afterAll). On a driver kind, the hub gets a new test database of its own, dropped afterwards; on
 * a {@link useTestDriver} or another used hub, it shares that database. `options` may be a function,
 * called in beforeAll, for options that are only known then.
 */
export function useTestHub(
  on: DriverKind | UsedTestDriver,
  options: TestHubOptions | (() => TestHubOptions | Promise<TestHubOptions>) = {},
): UsedTestHub {
  const db = typeof on === 'string' ? useTestDriver(on) : on;
  let started: TestHub | undefined;
  beforeAll(async () => {
    started = await startTestHub({
      ...(typeof options === 'function' ? await options() : options),
      driver: db.driver,
    });
  });
  afterAll(async () => {
    await started?.close();
  });
  const t = () => started ?? notYet('test hub');
  return {
    get kind() {
      return db.kind;
    },
    get driver() {
      return db.driver;
    },
    get database() {
      return db.database;
    },
    get hub() {
      return t().hub;
    },
    get adminToken() {
      return t().adminToken;
    },
    get adminId() {
      return t().adminId;
    },
    request: (method, path, requestOptions) => t().request(method, path, requestOptions),
    createUser: (input, tenant) => t().createUser(input, tenant),
    close: () => t().close(),
    store: (tenant = DEFAULT_TENANT_ID) => t().hub.driver().forTenant(tenant),
  };
}

function notYet(what: string): never {
  throw new Error(
    `The ${what} starts in beforeAll: read it inside tests and hooks, not while the suite is collected.`,
  );
}
