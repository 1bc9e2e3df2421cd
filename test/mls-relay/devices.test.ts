/**
 * Device enrollment on an E2EE hub: records, duplicates, revocation and re-enrollment, isolation
 * between users, the admin routes, and a 400 naming the field for every malformed body.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { httpDrivers } from '../helpers/drivers.ts';
import { useMlsHub } from './setup.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(httpDrivers())('device enrollment on %s', (driver) => {
  const h = useMlsHub(driver);

  it('enrolls a device and returns the record with a fingerprint of the trimmed key material', async () => {
    const user = await h.user();
    const deviceId = crypto.randomUUID();
    const res = await h.t.request('POST', '/devices', {
      token: user.token,
      body: {
        deviceId: deviceId.toUpperCase(),
        label: '  Work laptop ',
        publicKeyMaterial: '  pk-material\n',
        keyFormat: 'mls-key-package',
      },
    });
    expect(res.status).toBe(201);
    const fingerprint = sha256('pk-material');
    expect(res.body.device).toEqual({
      id: expect.any(String),
      userId: user.id,
      deviceId,
      label: 'Work laptop',
      keyFormat: 'mls-key-package',
      fingerprint,
      fingerprintPrefix: fingerprint.slice(0, 8),
      createdAt: expect.any(String),
      lastSeenAt: null,
      revokedAt: null,
    });
    const defaulted = await h.enroll(user.token);
    expect(defaulted.keyFormat).toBe('identity-v1');
  });

  it('refuses a second active enrollment of the same device with 409, also when the id differs only in case', async () => {
    const user = await h.user();
    const device = await h.enroll(user.token);
    const again = await h.t.request('POST', '/devices', {
      token: user.token,
      body: { deviceId: device.deviceId.toUpperCase(), label: 'Other', publicKeyMaterial: 'other' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('This device is already enrolled.');
  });

  it('lets another user enroll the same device id', async () => {
    const [a, b] = [await h.user(), await h.user()];
    const device = await h.enroll(a.token);
    const other = await h.enroll(b.token, { deviceId: device.deviceId });
    expect(other.userId).toBe(b.id);
  });

  it('gives exactly one 201 and one 409 for two concurrent enrollments of the same device', async () => {
    const user = await h.user();
    const body = { deviceId: crypto.randomUUID(), label: 'Phone', publicKeyMaterial: 'pk' };
    const results = await Promise.all(
      [0, 1].map(() => h.t.request('POST', '/devices', { token: user.token, body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('lists the caller’s devices newest first, revoked ones included', async () => {
    const user = await h.user();
    const first = await h.enroll(user.token);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await h.enroll(user.token);
    expect(
      (await h.t.request('DELETE', `/devices/${first.id}`, { token: user.token })).status,
    ).toBe(204);
    const res = await h.t.request('GET', '/devices', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.devices.map((d: any) => d.id)).toEqual([second.id, first.id]);
    expect(res.body.devices[1].revokedAt).toEqual(expect.any(String));
    expect(res.body.devices[0].revokedAt).toBeNull();
  });

  it('revokes once: a second revoke, an unknown id and another user’s device are 404', async () => {
    const [a, b] = [await h.user(), await h.user()];
    const device = await h.enroll(a.token);
    const foreign = await h.t.request('DELETE', `/devices/${device.id}`, { token: b.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('Device not found');
    expect((await h.t.request('DELETE', `/devices/${device.id}`, { token: a.token })).status).toBe(
      204,
    );
    const twice = await h.t.request('DELETE', `/devices/${device.id}`, { token: a.token });
    expect(twice.status).toBe(404);
    expect(twice.body.error).toBe('Device not found');
    for (const id of [crypto.randomUUID(), 'x'.repeat(500), 'nul%00id']) {
      const res = await h.t.request('DELETE', `/devices/${id}`, { token: a.token });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Device not found');
    }
  });

  it('re-enrolls a revoked device as a new active record that replaces the revoked one', async () => {
    const user = await h.user();
    const old = await h.enroll(user.token);
    await h.t.request('DELETE', `/devices/${old.id}`, { token: user.token });
    const fresh = await h.enroll(user.token, {
      deviceId: old.deviceId,
      publicKeyMaterial: 'new-key',
      label: 'Rebuilt',
    });
    expect(fresh).toMatchObject({
      deviceId: old.deviceId,
      label: 'Rebuilt',
      fingerprint: sha256('new-key'),
      revokedAt: null,
    });
    expect(fresh.id).not.toBe(old.id);
    const list = await h.t.request('GET', '/devices', { token: user.token });
    expect(list.body.devices.map((d: any) => d.id)).toEqual([fresh.id]);
    const again = await h.t.request('POST', '/devices', {
      token: user.token,
      body: { deviceId: old.deviceId, label: 'x', publicKeyMaterial: 'y' },
    });
    expect(again.status).toBe(409);
  });

  it.each([
    ['a missing device id', { deviceId: undefined }, /^deviceId: /],
    ['a non-object body', [1, 2], /^Request body: /],
    [
      'a device id that is not a UUID',
      { deviceId: 'laptop' },
      /^deviceId: must be a UUID v4 value$/,
    ],
    [
      'a UUID of another version',
      { deviceId: '6f1c1f5e-2b0a-1c4e-9d55-3f1f7a2b9c10' },
      /^deviceId: must be a UUID v4 value$/,
    ],
    ['a device id of the wrong type', { deviceId: 42 }, /^deviceId: /],
    ['a blank label', { label: '   ' }, /^label: must not be empty$/],
    [
      'a label over 128 characters',
      { label: 'é'.repeat(129) },
      /^label: must be at most 128 characters$/,
    ],
    ['a missing key', { publicKeyMaterial: undefined }, /^publicKeyMaterial: /],
    [
      'key material over 65536 characters',
      { publicKeyMaterial: 'k'.repeat(65_537) },
      /^publicKeyMaterial: must be at most 65536 characters$/,
    ],
    [
      'an unknown key format',
      { keyFormat: 'rsa' },
      /^keyFormat: must be one of identity-v1, mls-key-package$/,
    ],
    ['a NUL character', { label: 'a\u0000b' }, /^label: must not contain NUL characters$/],
  ])('answers 400 naming the field for %s', async (_name, patch, message) => {
    const base = { deviceId: crypto.randomUUID(), label: 'Laptop', publicKeyMaterial: 'key' };
    const body = Array.isArray(patch) ? patch : { ...base, ...patch };
    const res = await h.t.request('POST', '/devices', { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('accepts a label of exactly 128 characters, counted as characters', async () => {
    const device = await h.enroll(undefined, { label: '😀'.repeat(128) });
    expect([...device.label]).toHaveLength(128);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await h.t.request('POST', '/devices', { rawBody: '{"deviceId":' });
    expect(res.status).toBe(400);
  });

  describe('admin routes', () => {
    it('list every user’s devices and one user’s devices', async () => {
      const [a, b] = [await h.user(), await h.user()];
      const da = await h.enroll(a.token);
      const db = await h.enroll(b.token);
      const all = await h.t.request('GET', '/admin/device-keys');
      expect(all.status).toBe(200);
      const ids = all.body.devices.map((d: any) => d.id);
      expect(ids).toEqual(expect.arrayContaining([da.id, db.id]));
      expect(all.body.devices[0]).not.toHaveProperty('publicKeyMaterial');
      const one = await h.t.request('GET', `/admin/users/${a.id}/devices`);
      expect(one.status).toBe(200);
      expect(one.body.devices.map((d: any) => d.id)).toEqual([da.id]);
    });

    it('answer 404 User not found for an unknown or impossible user id', async () => {
      for (const id of [crypto.randomUUID(), 'u'.repeat(300)]) {
        const res = await h.t.request('GET', `/admin/users/${id}/devices`);
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('User not found');
      }
    });

    it('revoke any user’s device once, then 404', async () => {
      const user = await h.user();
      const device = await h.enroll(user.token);
      expect((await h.t.request('DELETE', `/admin/device-keys/${device.id}`)).status).toBe(204);
      const mine = await h.t.request('GET', '/devices', { token: user.token });
      expect(mine.body.devices[0].revokedAt).toEqual(expect.any(String));
      for (const id of [device.id, crypto.randomUUID()]) {
        const res = await h.t.request('DELETE', `/admin/device-keys/${id}`);
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('Device not found');
      }
    });

    it('refuse user-role tokens with 403', async () => {
      const user = await h.user();
      expect((await h.t.request('GET', '/admin/device-keys', { token: user.token })).status).toBe(
        403,
      );
      expect(
        (
          await h.t.request('DELETE', `/admin/device-keys/${crypto.randomUUID()}`, {
            token: user.token,
          })
        ).status,
      ).toBe(403);
    });
  });
});
