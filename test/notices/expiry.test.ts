/**
 * A notice stream opened with a token that expires by itself (as single sign-on issues them) ends
 * with `: unauthorized` once the hub's clock passes the expiry, although no token or user row
 * changed; a stream of a token without expiry stays open.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';
import { sseReader } from '../helpers/sse.ts';
import { pluginsWith } from './setup.ts';

describe('notice streams of expiring tokens', () => {
  const clock = createManualClock(new Date());
  const t = useTestHub(EMBEDDED_DRIVER, async () => ({
    clock,
    plugins: await pluginsWith({ heartbeatMs: 50 }),
  }));

  it('ends the stream once the token has expired, and keeps a token without expiry', async () => {
    const store = t.hub.driver().forTenant(DEFAULT_TENANT_ID);
    const { id } = await t.createUser({});
    const user = (await store.table(usersTable).get(id))!;
    const day = 86_400_000;
    const expiring = await t.hub.identity.tokens.issue(
      store,
      user,
      'sso',
      undefined,
      new Date(clock.now().getTime() + day).toISOString(),
    );
    const lasting = await t.hub.identity.tokens.issue(store, user, 'cli');
    const open = (secret: string) =>
      t.hub.app.request('/notices/stream', {
        headers: { authorization: `Bearer ${secret}`, accept: 'text/event-stream' },
      });
    const ending = sseReader(await open(expiring.secret));
    const staying = sseReader(await open(lasting.secret));
    await ending.until(': heartbeat');
    await staying.until(': heartbeat');
    clock.advance(day);
    expect(await ending.until(': unauthorized')).toContain(': unauthorized');
    await staying.until(/(: heartbeat\n[\s\S]*){3}/);
    expect((await t.request('GET', '/auth/session', { token: expiring.secret })).status).toBe(401);
    await staying.cancel();
  });
});
