/**
 * Adding something that belongs to a user (a token, an invitation, a redeemed invitation's token,
 * a thread subscription, notification settings, a device key) while the user is being deleted: whatever the interleaving, once the deletion has
 * answered nothing of the user's may be left, and no request may fail with a 500.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiTokensTable } from '../../kernel/identity/tables.ts';
import { HttpError } from '../../kernel/errors.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { subscriptionsTable } from '../../plugins/discussions/tables.ts';
import { invitationsTable } from '../../plugins/invites/tables.ts';
import { notificationSettingsTable } from '../../plugins/notices/tables.ts';
import { deviceKeysTable } from '../../plugins/mls-relay/tables.ts';
import { allDrivers } from '../helpers/drivers.ts';
import { uniqueName, useTestHub } from '../helpers/hub.ts';

const ROUNDS = 3;
const CONCURRENT = 20;

describe.each(allDrivers())('additions racing the deletion of their user on %s', (kind) => {
  // Each request may name its address, so failures caused by the deletion (redeems answering
  // 404, requests with the deleted user's token answering 401) do not trip the throttle.
  const t = useTestHub(kind, {
    config: { collaboration: { e2ee: true } },
    clientIp: (c) => c.req.header('x-test-ip') ?? '203.0.113.1',
  });
  // A second hub on the same database with plaintext discussions, to start threads in.
  const plain = useTestHub(t);
  let store: Store;
  beforeAll(() => {
    store = t.store();
  });

  const times = <T>(n: number, make: (i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: n }, (_, i) => make(i)));
  const tokensOf = (userId: string) => store.table(apiTokensTable).count({ userId });
  const deleteUser = (id: string) => t.request('DELETE', `/admin/users/${id}`);
  // Requests made with the token of a user deleted meanwhile fail authentication (401); one
  // address each keeps the failure throttle from turning the later ones into 429s.
  const ip = (i: number) => ({ 'x-test-ip': `192.0.2.${i + 1}` });

  it(`leaves no token when ${CONCURRENT} POST /admin/users/:id/tokens race DELETE /admin/users/:id`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const user = await t.createUser({ name: uniqueName('doomed') });
      const issues = times(CONCURRENT, (i) =>
        t.request('POST', `/admin/users/${user.id}/tokens`, { body: { name: `device-${i}` } }),
      );
      const deletion = deleteUser(user.id);
      const [statuses, deleted] = [(await issues).map((res) => res.status), await deletion];
      expect(deleted.status, deleted.text).toBe(204);
      expect(statuses.filter((status) => status !== 201 && status !== 404)).toEqual([]);
      expect(await tokensOf(user.id)).toBe(0);
    }
  });

  it(`leaves no token when ${CONCURRENT} issues through the kernel rule the CLI's token create uses race the deletion`, async () => {
    const { tokens, users } = t.hub.identity;
    for (let round = 0; round < ROUNDS; round++) {
      const user = await t.createUser({ name: uniqueName('doomed') });
      const issues = times(CONCURRENT, (i) =>
        tokens.issueFor(store, user.id, `cli-${i}`).then(
          () => 201,
          (error) => (error instanceof HttpError ? error.status : 500),
        ),
      );
      const deletion = users.delete(store, user.id);
      const statuses = await issues;
      await deletion;
      expect(statuses.filter((status) => status !== 201 && status !== 404)).toEqual([]);
      expect(await tokensOf(user.id)).toBe(0);
    }
  });

  it('leaves no invitation when POST /admin/users/:id/invitations races the deletion', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const user = await t.createUser({ name: uniqueName('doomed') });
      const issues = times(CONCURRENT, () =>
        t.request('POST', `/admin/users/${user.id}/invitations`, { body: {} }),
      );
      const deletion = deleteUser(user.id);
      const [statuses, deleted] = [(await issues).map((res) => res.status), await deletion];
      expect(deleted.status, deleted.text).toBe(204);
      expect(statuses.filter((status) => status !== 201 && status !== 404)).toEqual([]);
      expect(await store.table(invitationsTable).count({ userId: user.id })).toBe(0);
    }
  });

  it("leaves no token when redeems of the user's invitations race the deletion", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const first = await t.request('POST', '/admin/invited-users', {
        body: { name: uniqueName('invitee'), collectionAccess: ['*'] },
      });
      expect(first.status, first.text).toBe(201);
      const userId: string = first.body.user.id;
      const secrets: string[] = [first.body.secret];
      for (let i = 1; i < 8; i++) {
        const more = await t.request('POST', `/admin/users/${userId}/invitations`, { body: {} });
        expect(more.status, more.text).toBe(201);
        secrets.push(more.body.secret);
      }
      const redeems = secrets.map((secret, i) =>
        t.request('POST', '/auth/invitations/redeem', {
          token: null,
          body: { secret },
          headers: { 'x-test-ip': `198.51.100.${round * 10 + i}` },
        }),
      );
      const deletion = deleteUser(userId);
      const [statuses, deleted] = [
        (await Promise.all(redeems)).map((res) => res.status),
        await deletion,
      ];
      expect(deleted.status, deleted.text).toBe(204);
      expect(
        statuses.filter((status) => status !== 201 && status !== 404 && status !== 410),
      ).toEqual([]);
      expect(await tokensOf(userId)).toBe(0);
      expect(await store.table(invitationsTable).count({ userId })).toBe(0);
    }
  });

  it('leaves no thread subscription when subscribes by the user race the deletion', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const collection = await plain.request('POST', '/collections', {
        body: { name: uniqueName('collection') },
      });
      const roots = await times(CONCURRENT, async () => {
        const res = await plain.request('POST', `/collections/${collection.body.id}/discussions`, {
          body: { body: 'a thread' },
        });
        expect(res.status, res.text).toBe(200);
        return res.body.id as string;
      });
      const user = await t.createUser({ name: uniqueName('doomed'), collectionAccess: ['*'] });
      const subscribes = roots.map((id, i) =>
        t.request('POST', `/discussion-threads/${id}/subscribe`, {
          token: user.token,
          headers: ip(i),
        }),
      );
      const deletion = deleteUser(user.id);
      const [statuses, deleted] = [
        (await Promise.all(subscribes)).map((res) => res.status),
        await deletion,
      ];
      expect(deleted.status, deleted.text).toBe(204);
      expect(statuses.filter((status) => status !== 200 && status !== 401)).toEqual([]);
      expect(await store.table(subscriptionsTable).count({ userId: user.id })).toBe(0);
    }
  });

  it('leaves no notification settings when a settings change by the user races the deletion', async () => {
    for (let round = 0; round < ROUNDS * 3; round++) {
      const user = await t.createUser({ name: uniqueName('doomed') });
      const puts = times(4, (i) =>
        t.request('PUT', '/me/notification-settings', {
          token: user.token,
          body: { level: 'mentions' },
          headers: ip(i),
        }),
      );
      const deletion = deleteUser(user.id);
      const [statuses, deleted] = [(await puts).map((res) => res.status), await deletion];
      expect(deleted.status, deleted.text).toBe(204);
      expect(statuses.filter((status) => status !== 200 && status !== 401)).toEqual([]);
      expect(await store.table(notificationSettingsTable).get(user.id)).toBeNull();
    }
  });

  it('leaves no device key when enrollments by the user race the deletion', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const user = await t.createUser({ name: uniqueName('doomed') });
      const enrollments = times(CONCURRENT, (i) =>
        t.request('POST', '/devices', {
          token: user.token,
          headers: ip(i),
          body: {
            deviceId: crypto.randomUUID(),
            label: `laptop ${i}`,
            publicKeyMaterial: `key-${i}-${crypto.randomUUID()}`,
          },
        }),
      );
      const deletion = deleteUser(user.id);
      const [statuses, deleted] = [(await enrollments).map((res) => res.status), await deletion];
      expect(deleted.status, deleted.text).toBe(204);
      expect(statuses.filter((status) => status !== 201 && status !== 401)).toEqual([]);
      expect(await store.table(deviceKeysTable).count({ userId: user.id })).toBe(0);
    }
  });
});
