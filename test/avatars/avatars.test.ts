/** Avatars over HTTP: the caller's own avatar, admin updates, image bytes and the hub avatar. */
import { describe, expect, it } from 'vitest';
import { usersTable } from '../../kernel/identity/tables.ts';
import { avatarsTable, userAvatarId } from '../../plugins/avatars/service.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useTestHub, withTestHub } from '../helpers/hub.ts';

// Small image payloads: real magic numbers, made-up bodies.
const bytesOf = (...parts: (number[] | string)[]) =>
  Buffer.concat(
    parts.map((part) =>
      typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part),
    ),
  );

const PNG = bytesOf(
  [0x89],
  'PNG',
  [0x0d, 0x0a, 0x1a, 0x0a],
  [0, 0, 0, 13],
  'IHDR',
  [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0],
);
const JPEG = bytesOf([0xff, 0xd8, 0xff, 0xe0, 0, 16], 'JFIF', [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
const GIF = bytesOf('GIF89a', [1, 0, 1, 0, 0, 0, 0]);
const WEBP = bytesOf('RIFF', [26, 0, 0, 0], 'WEBPVP8L', [13, 0, 0, 0, 0x2f, 0, 0, 0]);

/** A data URL of `bytes` labelled `mime`. */
const dataUrl = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString('base64')}`;

describe.each(httpDrivers())('avatars on %s', (kind) => {
  const t = useTestHub(kind);
  const store = () => t.store();

  describe('PUT /auth/profile/avatar', () => {
    it('changes initials and colour and returns the avatar fields without an image URL', async () => {
      const user = await t.createUser({});
      const res = await t.request('PUT', '/auth/profile/avatar', {
        token: user.token,
        body: { initials: 'zq', color: 'teal-600' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ avatarInitials: 'ZQ', avatarColor: 'teal-600' });
    });

    it('stores an image outside the users row and serves it back with caching headers', async () => {
      const user = await t.createUser({});
      const res = await t.request('PUT', '/auth/profile/avatar', {
        token: user.token,
        body: { imageDataUrl: dataUrl('image/png', PNG) },
      });
      expect(res.status).toBe(200);
      expect(res.body.avatarImageUrl).toMatch(
        new RegExp(`^/auth/users/${user.id}/avatar\\?v=\\d+$`),
      );
      const row = await store().table(avatarsTable).get(userAvatarId(user.id));
      expect(row).toMatchObject({ mime: 'image/png', data: PNG.toString('base64') });

      const image = await t.hub.app.request(res.body.avatarImageUrl, {
        headers: { authorization: `Bearer ${t.adminToken}` },
      });
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(image.headers.get('cache-control')).toBe('private, max-age=3600');
      const etag = image.headers.get('etag');
      expect(etag).toBe(`"${res.body.avatarImageUrl.split('v=')[1]}"`);
      expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);

      const cached = await t.hub.app.request(`/auth/users/${user.id}/avatar`, {
        headers: { authorization: `Bearer ${t.adminToken}`, 'if-none-match': etag! },
      });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe('');

      const session = await t.request('GET', '/auth/session', { token: user.token });
      expect(session.body.user.avatarImageUrl).toBe(res.body.avatarImageUrl);
    });

    it('accepts JPEG (also labelled image/jpg), WebP and GIF, and clears the image with null', async () => {
      const user = await t.createUser({});
      for (const [mime, bytes, stored] of [
        ['image/jpg', JPEG, 'image/jpeg'],
        ['image/webp', WEBP, 'image/webp'],
        ['image/gif', GIF, 'image/gif'],
      ] as const) {
        const res = await t.request('PUT', '/auth/profile/avatar', {
          token: user.token,
          body: { imageDataUrl: dataUrl(mime, bytes) },
        });
        expect(res.status, mime).toBe(200);
        const image = await t.request('GET', `/auth/users/${user.id}/avatar`);
        expect(image.headers.get('content-type')).toBe(stored);
      }
      const cleared = await t.request('PUT', '/auth/profile/avatar', {
        token: user.token,
        body: { imageDataUrl: null },
      });
      expect(cleared.status).toBe(200);
      expect(cleared.body).not.toHaveProperty('avatarImageUrl');
      expect((await t.request('GET', `/auth/users/${user.id}/avatar`)).body).toEqual({
        error: 'Avatar image not found',
        code: 'not_found',
      });
    });

    it.each([
      [{}, 'Request body: Give at least one of initials, color or imageDataUrl.'],
      [{ initials: 'ABC' }, 'initials: Avatar initials must be one or two letters.'],
      [{ initials: 'A1' }, 'initials: Avatar initials must contain letters only.'],
      [{ color: '#ff0000' }, 'color: Avatar colour must be one of'],
      [
        { imageDataUrl: 'https://example.com/a.png' },
        'imageDataUrl: Avatar image must be a base64 image data URL.',
      ],
      [
        { imageDataUrl: dataUrl('image/svg+xml', Buffer.from('<svg/>')) },
        'imageDataUrl: Avatar image type "image/svg+xml" is not supported. Use JPEG, PNG, WebP, or GIF.',
      ],
      [{ imageDataUrl: 'data:image/png;base64,' }, 'imageDataUrl: Avatar image payload is empty.'],
      [
        { imageDataUrl: 'data:image/png;base64,***' },
        'imageDataUrl: Avatar image must be a base64 image data URL.',
      ],
      [
        { imageDataUrl: dataUrl('image/png', Buffer.concat([PNG, Buffer.alloc(204_800)])) },
        'imageDataUrl: Avatar image exceeds the maximum size of 204800 bytes.',
      ],
      [
        { imageDataUrl: dataUrl('image/png', Buffer.from('<html>not an image</html>')) },
        'imageDataUrl: Avatar image content is not a JPEG, PNG, WebP, or GIF image.',
      ],
      [
        { imageDataUrl: dataUrl('image/png', JPEG) },
        'imageDataUrl: Avatar image content is image/jpeg, not the declared type "image/png".',
      ],
      [{ imageDataUrl: 42 }, 'imageDataUrl: Invalid input'],
    ])('refuses %j with a 400 naming the field', async (body, message) => {
      const user = await t.createUser({});
      const res = await t.request('PUT', '/auth/profile/avatar', { token: user.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(message);
    });

    it('accepts an image of exactly 204800 decoded bytes', async () => {
      const user = await t.createUser({});
      const bytes = Buffer.concat([PNG, Buffer.alloc(204_800 - PNG.length)]);
      const res = await t.request('PUT', '/auth/profile/avatar', {
        token: user.token,
        body: { imageDataUrl: dataUrl('image/png', bytes) },
      });
      expect(res.status).toBe(200);
    });
  });

  describe('PUT /admin/users/:id with imageDataUrl', () => {
    it('stores, reports and clears the image in the user record', async () => {
      const user = await t.createUser({});
      const set = await t.request('PUT', `/admin/users/${user.id}`, {
        body: { imageDataUrl: dataUrl('image/gif', GIF), avatarInitials: 'qq' },
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        id: user.id,
        avatarInitials: 'QQ',
        avatarImageUrl: expect.stringMatching(/^\/auth\/users\/.+\/avatar\?v=\d+$/),
      });
      expect(
        (await t.request('GET', `/auth/users/${user.id}/avatar`)).headers.get('content-type'),
      ).toBe('image/gif');
      const cleared = await t.request('PUT', `/admin/users/${user.id}`, {
        body: { imageDataUrl: null },
      });
      expect(cleared.status).toBe(200);
      expect(cleared.body).not.toHaveProperty('avatarImageUrl');
    });

    it('refuses an invalid image with 400 and changes nothing else', async () => {
      const user = await t.createUser({});
      const res = await t.request('PUT', `/admin/users/${user.id}`, {
        body: { name: 'renamed-never', imageDataUrl: 'data:text/plain;base64,aGk=' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(
        'imageDataUrl: Avatar image type "text/plain" is not supported. Use JPEG, PNG, WebP, or GIF.',
      );
      expect((await store().table(usersTable).get(user.id))!.name).not.toBe('renamed-never');
    });
  });

  describe('image bytes and the hub avatar', () => {
    it('answers 404 for an unknown user, a user without an image, and an over-long id', async () => {
      const user = await t.createUser({});
      for (const path of [
        '/auth/users/00000000-0000-4000-8000-000000000000/avatar',
        `/auth/users/${user.id}/avatar`,
        `/auth/users/${'x'.repeat(300)}/avatar`,
      ]) {
        const res = await t.request('GET', path);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'Avatar image not found', code: 'not_found' });
      }
    });

    it('needs a token to read image bytes', async () => {
      expect(
        (await t.request('GET', `/auth/users/${t.adminId}/avatar`, { token: null })).status,
      ).toBe(401);
    });

    it('removes the image when the user is deleted', async () => {
      const user = await t.createUser({});
      await t.request('PUT', '/auth/profile/avatar', {
        token: user.token,
        body: { imageDataUrl: dataUrl('image/png', PNG) },
      });
      expect((await t.request('DELETE', `/admin/users/${user.id}`)).status).toBe(204);
      expect(await store().table(avatarsTable).get(userAvatarId(user.id))).toBeNull();
      expect((await t.request('GET', `/auth/users/${user.id}/avatar`)).status).toBe(404);
    });

    it('sets the hub avatar for admins only and shows it in the session', async () => {
      const plain = await t.createUser({});
      expect(
        (
          await t.request('PUT', '/admin/hub/avatar', {
            token: plain.token,
            body: { initials: 'HB' },
          })
        ).status,
      ).toBe(403);
      expect((await t.request('PUT', '/admin/hub/avatar', { body: {} })).status).toBe(400);

      const res = await t.request('PUT', '/admin/hub/avatar', {
        body: { initials: 'wh', color: 'rose-600', imageDataUrl: dataUrl('image/webp', WEBP) },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        name: expect.any(String),
        initials: 'WH',
        color: 'rose-600',
        imageUrl: expect.stringMatching(/^\/auth\/hub\/avatar\?v=\d+$/),
      });
      const image = await t.request('GET', '/auth/hub/avatar', { token: plain.token });
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/webp');
      expect(image.headers.get('etag')).toBe(`"${res.body.imageUrl.split('v=')[1]}"`);
      const session = await t.request('GET', '/auth/session', { token: plain.token });
      expect(session.body.hub).toEqual(res.body);

      const cleared = await t.request('PUT', '/admin/hub/avatar', { body: { imageDataUrl: null } });
      expect(cleared.body).not.toHaveProperty('imageUrl');
      expect((await t.request('GET', '/auth/hub/avatar')).body).toEqual({
        error: 'Avatar image not found',
        code: 'not_found',
      });
    });

    it('keeps one hub image per tenant', async () => {
      await withTestHub(
        { driver: t.driver, config: { multitenancy: { enabled: true } } },
        async (multi) => {
          const tenant = `t${Math.random().toString(36).slice(2, 8)}`;
          await multi.hub.identity.tenants.create(tenant, 'Other team');
          const otherAdmin = await multi.createUser({ role: 'admin' }, tenant);
          const here = await multi.request('PUT', '/admin/hub/avatar', {
            body: { imageDataUrl: dataUrl('image/png', PNG) },
          });
          const there = await multi.request('PUT', '/admin/hub/avatar', {
            token: otherAdmin.token,
            tenant,
            body: { imageDataUrl: dataUrl('image/webp', WEBP) },
          });
          expect([here.status, there.status]).toEqual([200, 200]);
          expect((await multi.request('GET', '/auth/hub/avatar')).headers.get('content-type')).toBe(
            'image/png',
          );
          expect(
            (
              await multi.request('GET', '/auth/hub/avatar', { token: otherAdmin.token, tenant })
            ).headers.get('content-type'),
          ).toBe('image/webp');
        },
      );
    });
  });
});
