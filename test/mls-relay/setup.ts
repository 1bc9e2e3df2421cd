/**
 * Fixtures for the mls-relay suites: the shared hub and entity fixtures on a hub with E2EE on unless
 * told otherwise, and helpers that enroll devices and relay commits over HTTP, so every fixture goes
 * through the same rules as a client.
 */
import { expect } from 'vitest';
import type { DriverKind } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub } from '../helpers/hub.ts';

export const E2EE_OFF =
  'Device enrollment is only available on Team Hubs with discussion E2EE enabled.';

/** Starts one hub on `kind` for the enclosing describe block; read it inside tests only. */
export function useMlsHub(kind: DriverKind, e2ee = true) {
  const f = fixtures(useTestHub(kind, { config: { collaboration: { e2ee } } }));
  const { t } = f;
  const withToken = (token?: string) => (token ? { token } : {});
  return {
    ...f,
    /** Enrolls a fresh device for the token's user; returns the device record. */
    async enroll(token?: string, extra: Record<string, unknown> = {}): Promise<any> {
      const body = {
        deviceId: crypto.randomUUID(),
        label: 'Laptop',
        publicKeyMaterial: `key-${crypto.randomUUID()}`,
        ...extra,
      };
      const res = await t.request('POST', '/devices', { body, ...withToken(token) });
      expect(res.status, res.text).toBe(201);
      return res.body.device;
    },
    /** A group id for a new collection thread, made by the admin. */
    group: async (): Promise<string> => `thread:collection:${(await f.collection()).id}`,
    /** POSTs a commit and returns the response. */
    async commit(
      body: { mlsGroupId: string; epoch: number; senderDeviceId: string; ciphertext?: string },
      token?: string,
    ): Promise<{ status: number; body: any }> {
      const res = await t.request('POST', '/discussion-mls/commits', {
        body: { ciphertext: 'Y2lwaGVy', ...body },
        ...withToken(token),
      });
      return { status: res.status, body: res.body };
    },
  };
}
