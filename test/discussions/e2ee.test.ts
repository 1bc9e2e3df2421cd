/**
 * Discussions on an E2EE hub: only encrypted payloads from enrolled devices are accepted, no body is
 * ever returned in plaintext, and payload validation answers 400 with the reference messages.
 */
import { describe, expect, it } from 'vitest';
import { commentsTable } from '../../plugins/discussions/tables.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useDiscussionHub } from './setup.ts';

const PLAINTEXT_REFUSED =
  'Plaintext discussion bodies are not accepted on this Team Hub. Encrypted payloads are required.';

describe.each(httpDrivers())('discussions on an E2EE hub on %s', (driver) => {
  const h = useDiscussionHub(driver, { config: { collaboration: { e2ee: true } } });
  const payload = (deviceId: string, extra: Record<string, unknown> = {}) => ({
    ciphertext: 'Y2lwaGVy',
    mlsGroupId: 'thread:collection:x',
    epoch: 3,
    senderDeviceId: deviceId,
    keyFormat: 'mls-v1',
    ...extra,
  });

  it('stores an encrypted comment and returns its payload without a body', async () => {
    const col = await h.collection();
    const device = await h.enrollDevice(h.t.adminId);
    const res = await h.post(`/collections/${col.id}`, {
      encryptedPayload: payload(device, { commitRef: 'c1' }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      body: null,
      bodyFormat: 'encrypted',
      tombstoned: false,
      depth: 1,
      encryptedPayload: {
        ciphertext: 'Y2lwaGVy',
        mlsGroupId: 'thread:collection:x',
        epoch: 3,
        senderDeviceId: device,
        keyFormat: 'mls-v1',
        commitRef: 'c1',
      },
    });
    const row = await h.t.store().table(commentsTable).get(res.body.id);
    expect(row).toMatchObject({
      body: 'Y2lwaGVy',
      bodyFormat: 'encrypted',
      bodyMetadata: { version: 1, epoch: 3 },
    });
    const reply = await h.t.request('POST', `/discussion-comments/${res.body.id}/replies`, {
      body: { encryptedPayload: payload(device, { epoch: 4 }) },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ depth: 2, body: null, encryptedPayload: { epoch: 4 } });
    const edited = await h.t.request('PUT', `/discussion-comments/${res.body.id}`, {
      body: { encryptedPayload: payload(device, { ciphertext: 'bmV3' }) },
    });
    expect(edited.body.encryptedPayload.ciphertext).toBe('bmV3');
    const deleted = await h.t.request('DELETE', `/discussion-comments/${res.body.id}`);
    expect(deleted.body).toMatchObject({ tombstoned: true, body: null, encryptedPayload: null });
  });

  it('refuses plaintext bodies and missing payloads on create, reply and edit', async () => {
    const col = await h.collection();
    const device = await h.enrollDevice(h.t.adminId);
    const root = await h.post(`/collections/${col.id}`, { encryptedPayload: payload(device) });
    for (const [method, path] of [
      ['POST', `/collections/${col.id}/discussions`],
      ['POST', `/discussion-comments/${root.body.id}/replies`],
      ['PUT', `/discussion-comments/${root.body.id}`],
    ]) {
      for (const body of [
        { body: 'secret' },
        {},
        { body: 'x', encryptedPayload: payload(device) },
      ]) {
        const res = await h.t.request(method!, path!, { body });
        expect(res).toMatchObject({ status: 400, body: { error: PLAINTEXT_REFUSED } });
      }
    }
  });

  it('never returns plaintext, even for comments written before E2EE was enabled', async () => {
    const col = await h.collection();
    const now = new Date().toISOString();
    const id = crypto.randomUUID();
    await h.t.store().table(commentsTable).insert({
      id,
      entityType: 'collection',
      entityId: col.id,
      parentCommentId: null,
      rootCommentId: id,
      depth: 1,
      body: 'old plaintext',
      bodyFormat: 'plaintext',
      bodyMetadata: null,
      authorUserId: h.t.adminId,
      createdAt: now,
      updatedAt: now,
      tombstonedAt: null,
      tombstonedByUserId: null,
    });
    const [listed] = (await h.list(`/collections/${col.id}`)).body.comments;
    expect(listed).toMatchObject({
      id,
      body: null,
      bodyFormat: 'plaintext',
      encryptedPayload: null,
    });
  });

  it('refuses devices that are unknown, revoked or enrolled by someone else with 403', async () => {
    const col = await h.collection();
    const other = await h.user({ collectionAccess: [col.id] });
    const devices = [
      crypto.randomUUID(),
      await h.enrollDevice(h.t.adminId, true),
      await h.enrollDevice(other.id),
    ];
    for (const device of devices) {
      const res = await h.post(`/collections/${col.id}`, { encryptedPayload: payload(device) });
      expect(res).toMatchObject({
        status: 403,
        body: { error: 'Sender device is not enrolled on this Team Hub' },
      });
    }
    expect(
      (
        await h.post(
          `/collections/${col.id}`,
          { encryptedPayload: payload(devices[2]!) },
          other.token,
        )
      ).status,
    ).toBe(200);
  });

  it('accepts a device enrolled through the devices route, whatever the case of its id', async () => {
    const col = await h.collection();
    const deviceId = crypto.randomUUID();
    const enrolled = await h.t.request('POST', '/devices', {
      body: { deviceId: deviceId.toUpperCase(), label: 'laptop', publicKeyMaterial: 'key' },
    });
    expect(enrolled.status).toBe(201);
    for (const id of [deviceId, deviceId.toUpperCase()]) {
      expect(
        (await h.post(`/collections/${col.id}`, { encryptedPayload: payload(id) })).status,
      ).toBe(200);
    }
  });

  it('validates every payload field with a 400 and its message', async () => {
    const col = await h.collection();
    const device = await h.enrollDevice(h.t.adminId);
    const cases: [unknown, string][] = [
      [payload(device, { ciphertext: '  ' }), 'Encrypted discussion ciphertext is required'],
      [payload(device, { ciphertext: 7 }), 'Encrypted discussion ciphertext is required'],
      [
        payload(device, { ciphertext: 'x'.repeat(262_145) }),
        'Encrypted discussion ciphertext is too large',
      ],
      [payload(device, { mlsGroupId: '' }), 'MLS group id is required'],
      [payload(device, { mlsGroupId: undefined }), 'MLS group id is required'],
      [payload(device, { epoch: -1 }), 'MLS epoch must be a non-negative integer'],
      [payload(device, { epoch: 1.5 }), 'MLS epoch must be a non-negative integer'],
      [payload(device, { epoch: '2' }), 'MLS epoch must be a non-negative integer'],
      [payload(device, { senderDeviceId: 'device-1' }), 'Sender device id must be a UUID v4 value'],
      [
        payload(device, { senderDeviceId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8' }),
        'Sender device id must be a UUID v4 value',
      ],
      [payload(device, { keyFormat: 'pgp' }), 'Unsupported encrypted discussion key format'],
      [payload(device, { commitRef: 5 }), 'commitRef'],
      ['cipher', 'encryptedPayload'],
      [[1], 'encryptedPayload'],
    ];
    for (const [encryptedPayload, message] of cases) {
      const res = await h.post(`/collections/${col.id}`, { encryptedPayload });
      expect(res.status, message).toBe(400);
      expect(res.body.error).toContain(message);
    }
    expect(
      (
        await h.post(`/collections/${col.id}`, {
          encryptedPayload: payload(device, {
            ciphertext: 'x'.repeat(262_144),
            keyFormat: 'identity-v1',
            epoch: 0,
          }),
        })
      ).status,
    ).toBe(200);
  });
});
