/**
 * Without `collaboration.e2ee` every device and relay route answers 404 with the exact message the
 * desktop client probes for, before validating anything.
 */
import { describe, expect, it } from 'vitest';
import { httpDrivers } from '../helpers/drivers.ts';
import { E2EE_OFF, useMlsHub } from './setup.ts';

const uuid = '6f1c1f5e-2b0a-4c4e-9d55-3f1f7a2b9c10';
const ROUTES: [string, string, unknown?][] = [
  ['POST', '/devices', { deviceId: uuid, label: 'Laptop', publicKeyMaterial: 'key' }],
  ['GET', '/devices'],
  ['DELETE', `/devices/${uuid}`],
  ['GET', '/admin/device-keys'],
  ['GET', `/admin/users/${uuid}/devices`],
  ['DELETE', `/admin/device-keys/${uuid}`],
  [
    'POST',
    '/discussion-mls/commits',
    { mlsGroupId: 'thread:collection:x', epoch: 0, ciphertext: 'c', senderDeviceId: uuid },
  ],
  ['GET', '/discussion-mls/commits?mlsGroupId=thread:collection:x'],
  [
    'POST',
    '/discussion-mls/welcomes',
    {
      mlsGroupId: 'thread:collection:x',
      recipientDeviceId: uuid,
      ciphertext: 'c',
      ratchetTree: 't',
    },
  ],
  ['GET', '/discussion-mls/welcomes?mlsGroupId=thread:collection:x'],
  ['GET', '/discussion-mls/group-state/thread:collection:x'],
];

describe.each(httpDrivers())('device and relay routes on a hub without E2EE on %s', (driver) => {
  const h = useMlsHub(driver, false);

  it.each(ROUTES)(
    '%s %s answers 404 with the device-enrollment message',
    async (method, path, body) => {
      const res = await h.t.request(method, path, body === undefined ? {} : { body });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: E2EE_OFF, code: 'not_found' });
    },
  );

  it('answers 404 before validating a malformed body', async () => {
    const res = await h.t.request('POST', '/devices', { rawBody: '[1,2' });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe(E2EE_OFF);
    const invalid = await h.t.request('GET', '/discussion-mls/commits?cursor=x');
    expect(invalid.status).toBe(404);
    expect(invalid.body.error).toBe(E2EE_OFF);
  });

  it('gives user-role tokens the message on their own routes and 403 on admin routes, whose role check runs first', async () => {
    const user = await h.user();
    const own = await h.t.request('GET', '/devices', { token: user.token });
    expect(own.status).toBe(404);
    expect(own.body.error).toBe(E2EE_OFF);
    const admin = await h.t.request('GET', '/admin/device-keys', { token: user.token });
    expect(admin.status).toBe(403);
  });

  it('still asks for a token first', async () => {
    const res = await h.t.request('GET', '/devices', { token: null });
    expect(res.status).toBe(401);
  });
});
