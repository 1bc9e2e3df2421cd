/**
 * Shared fixtures for the entities suites: one hub per test file and driver, and small helpers that
 * create entities through the HTTP API (so every fixture goes through the same rules as a client).
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { UserInput } from '../../kernel/identity/users.ts';
import { openTestDriver, type TestDriver } from '../helpers/drivers.ts';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.ts';

export interface EntitiesHub {
  t: TestHub;
  /** POSTs and expects 200 (201 for the few admin creates); returns the record. */
  create(path: string, body: Record<string, unknown>, token?: string): Promise<any>;
  collection(token?: string, extra?: Record<string, unknown>): Promise<any>;
  folder(collectionId: string, extra?: Record<string, unknown>, token?: string): Promise<any>;
  request(collectionId: string, extra?: Record<string, unknown>, token?: string): Promise<any>;
  document(collectionId: string, extra?: Record<string, unknown>, token?: string): Promise<any>;
  /** A user-role account with these access lists. */
  user(access?: UserInput): Promise<{ id: string; token: string }>;
  /** Ids in the listing at `path` (under `key`), in order, restricted to `ids` when given. */
  listIds(path: string, key: string, token?: string, ids?: readonly string[]): Promise<string[]>;
}

/** Starts one hub on `kind` for the enclosing describe block; read it inside tests only. */
export function useEntitiesHub(kind: string): EntitiesHub {
  let db: TestDriver;
  let t: TestHub;
  beforeAll(async () => {
    db = await openTestDriver(kind as never);
    t = await startTestHub({ driver: db.driver });
  });
  afterAll(async () => {
    await t?.close();
    await db?.cleanup();
  });

  const api: EntitiesHub = {
    get t() {
      return t;
    },
    async create(path, body, token) {
      const res = await t.request('POST', path, { body, ...(token ? { token } : {}) });
      expect(res.status, `POST ${path}: ${res.text}`).toBe(path.startsWith('/admin/') ? 201 : 200);
      return res.body;
    },
    collection: (token, extra = {}) => api.create('/collections', { name: uniqueName('collection'), ...extra }, token),
    folder: (collectionId, extra = {}, token) => api.create(`/collections/${collectionId}/folders`, { name: uniqueName('folder'), ...extra }, token),
    request: (collectionId, extra = {}, token) => api.create(`/collections/${collectionId}/requests`, { name: uniqueName('request'), ...extra }, token),
    document: (collectionId, extra = {}, token) => api.create(`/collections/${collectionId}/documents`, { name: uniqueName('document'), ...extra }, token),
    user: (access = {}) => t.createUser(access),
    async listIds(path, key, token, ids) {
      const res = await t.request('GET', path, token ? { token } : {});
      expect(res.status, `GET ${path}: ${res.text}`).toBe(200);
      const all = (res.body[key] as { id: string }[]).map((row) => row.id);
      return ids ? all.filter((id) => ids.includes(id)) : all;
    },
  };
  return api;
}
