/**
 * Fixtures for the mls-relay suites: one hub per describe block and driver (E2EE on unless told
 * otherwise), and helpers that create entities, enroll devices and relay commits over HTTP, so every
 * fixture goes through the same rules as a client.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { UserInput } from '../../kernel/identity/users.ts';
import { openTestDriver, type DriverKind, type TestDriver } from '../helpers/drivers.ts';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.ts';

export const E2EE_OFF = 'Device enrollment is only available on Team Hubs with discussion E2EE enabled.';

export interface MlsHub {
  t: TestHub;
  /** A user-role account with these access lists. */
  user(access?: UserInput): Promise<{ id: string; token: string }>;
  /** A new collection (made by the admin unless a token is given). */
  collection(token?: string): Promise<{ id: string }>;
  /** A saved request in that collection. */
  savedRequest(collectionId: string): Promise<{ id: string }>;
  /** Enrolls a fresh device for the token's user; returns the device record. */
  enroll(token?: string, extra?: Record<string, unknown>): Promise<any>;
  /** A group id for a new collection thread, made by the admin. */
  group(): Promise<string>;
  /** POSTs a commit and returns the response. */
  commit(body: { mlsGroupId: string; epoch: number; senderDeviceId: string; ciphertext?: string }, token?: string): Promise<{ status: number; body: any }>;
}

/** Starts one hub on `kind` for the enclosing describe block; read it inside tests only. */
export function useMlsHub(kind: DriverKind, e2ee = true): MlsHub {
  let db: TestDriver;
  let t: TestHub;
  beforeAll(async () => {
    db = await openTestDriver(kind);
    t = await startTestHub({ driver: db.driver, config: { collaboration: { e2ee } } });
  });
  afterAll(async () => {
    await t?.close();
    await db?.cleanup();
  });

  const withToken = (token?: string) => (token ? { token } : {});
  const api: MlsHub = {
    get t() {
      return t;
    },
    user: (access = {}) => t.createUser(access),
    async collection(token) {
      const res = await t.request('POST', '/collections', { body: { name: uniqueName('collection') }, ...withToken(token) });
      expect(res.status, res.text).toBe(200);
      return res.body;
    },
    async savedRequest(collectionId) {
      const res = await t.request('POST', `/collections/${collectionId}/requests`, { body: { name: uniqueName('request') } });
      expect(res.status, res.text).toBe(200);
      return res.body;
    },
    async enroll(token, extra = {}) {
      const body = { deviceId: crypto.randomUUID(), label: 'Laptop', publicKeyMaterial: `key-${crypto.randomUUID()}`, ...extra };
      const res = await t.request('POST', '/devices', { body, ...withToken(token) });
      expect(res.status, res.text).toBe(201);
      return res.body.device;
    },
    async group() {
      return `thread:collection:${(await api.collection()).id}`;
    },
    async commit(body, token) {
      const res = await t.request('POST', '/discussion-mls/commits', { body: { ciphertext: 'Y2lwaGVy', ...body }, ...withToken(token) });
      return { status: res.status, body: res.body };
    },
  };
  return api;
}
