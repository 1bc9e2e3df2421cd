/**
 * Shared fixtures for the discussions suites: one hub per describe block and driver, entities made
 * through the HTTP API, and helpers for comments. Enrolled devices are written straight into the
 * device table, because the device routes belong to another plugin.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { Clock } from '../../kernel/clock.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { UserInput } from '../../kernel/identity/users.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { deviceKeysTable } from '../../plugins/mls-relay/tables.ts';
import { openTestDriver, type TestDriver } from '../helpers/drivers.ts';
import { startTestHub, uniqueName, type TestHub, type TestResponse } from '../helpers/hub.ts';


export interface DiscussionHubOptions {
  config?: Record<string, unknown>;
  clock?: Clock;
}

export interface DiscussionHub {
  t: TestHub;
  /** The default tenant's store, for direct reads and writes. */
  store(): Store;
  collection(token?: string): Promise<any>;
  folder(collectionId: string, token?: string): Promise<any>;
  request(collectionId: string, token?: string, folderId?: string): Promise<any>;
  runResult(token?: string, collectionId?: string): Promise<any>;
  user(access?: UserInput): Promise<{ id: string; token: string }>;
  /** POST a new comment on `<target>/discussions` (e.g. `/collections/<id>`); returns the raw response. */
  post(target: string, body: unknown, token?: string): Promise<TestResponse>;
  /** Like {@link post} but expects 200 and returns the record. */
  comment(target: string, text?: string, token?: string): Promise<any>;
  reply(parentId: string, text?: string, token?: string): Promise<any>;
  list(target: string, query?: string, token?: string): Promise<TestResponse>;
  /** Enrolls a device for `userId` and returns its device id. */
  enrollDevice(userId: string, revoked?: boolean): Promise<string>;
}

/** Starts one hub on `kind` for the enclosing describe block; read it inside tests only. */
export function useDiscussionHub(kind: string, options: DiscussionHubOptions = {}): DiscussionHub {
  let db: TestDriver;
  let t: TestHub;
  beforeAll(async () => {
    db = await openTestDriver(kind as never);
    t = await startTestHub({ driver: db.driver, ...options });
  });
  afterAll(async () => {
    await t?.close();
    await db?.cleanup();
  });

  const tok = (token?: string) => (token ? { token } : {});
  const created = async (path: string, body: unknown, token?: string) => {
    const res = await t.request('POST', path, { body, ...tok(token) });
    expect(res.status, `POST ${path}: ${res.text}`).toBe(200);
    return res.body;
  };

  const api: DiscussionHub = {
    get t() {
      return t;
    },
    store: () => t.hub.driver().forTenant(DEFAULT_TENANT_ID),
    collection: (token) => created('/collections', { name: uniqueName('collection') }, token),
    folder: (collectionId, token) => created(`/collections/${collectionId}/folders`, { name: uniqueName('folder') }, token),
    request: (collectionId, token, folderId) =>
      created(`/collections/${collectionId}/requests`, { name: uniqueName('request'), ...(folderId ? { folderId } : {}) }, token),
    runResult: (token, collectionId) =>
      created('/run-results', {
        payload: {
          harborclientExport: 'collection-run-results',
          results: [{ status: 'passed' }],
          ...(collectionId ? { collection: { id: collectionId, name: 'c' } } : {}),
        },
      }, token),
    user: (access = {}) => t.createUser(access),
    post: (target, body, token) => t.request('POST', `${target}/discussions`, { body, ...tok(token) }),
    comment: (target, text = 'hello', token) => created(`${target}/discussions`, { body: text }, token),
    reply: (parentId, text = 'a reply', token) => created(`/discussion-comments/${parentId}/replies`, { body: text }, token),
    list: (target, query = '', token) => t.request('GET', `${target}/discussions${query}`, tok(token)),
    async enrollDevice(userId, revoked = false) {
      const deviceId = crypto.randomUUID();
      const now = new Date().toISOString();
      await api.store().table(deviceKeysTable).insert({
        id: crypto.randomUUID(), userId, deviceId, label: 'laptop', keyFormat: 'mls-v1', publicKeyMaterial: 'key',
        fingerprint: 'a'.repeat(64), createdAt: now, lastSeenAt: null, revokedAt: revoked ? now : null,
      });
      return deviceId;
    },
  };
  return api;
}
