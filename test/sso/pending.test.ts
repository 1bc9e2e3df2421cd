/**
 * The sign-in in progress lives in the browser's signed cookie: a start writes nothing (only the
 * hub's signing key, once), a cookie whose signature does not check or whose ten minutes are over
 * is refused, a sign-in started on one instance finishes on another on the same database exactly
 * once, and the record of used states is swept. Also the migration that drops the table of rows
 * older hubs wrote per start. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../kernel/clock.ts';
import { collectMigrations } from '../../kernel/schema.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { plugins } from '../../plugins/index.ts';
import {
  retiredSsoLoginsTable,
  ssoKeysTable,
  ssoUsedStatesTable,
} from '../../plugins/sso/tables.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { openTestDriver } from '../helpers/drivers.ts';
import { startTestHub, useTestDriver, type TestHub } from '../helpers/hub.ts';
import { oidcClient, startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, codeOf, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';
const DRIVERS = (['sqlite', 'postgres'] as const).filter(driverAvailable);

describe.each(DRIVERS)('the sign-in cookie (%s)', (kind) => {
  let idp: TestIdp;
  const db = useTestDriver(kind);
  const clock = createManualClock(new Date('2026-04-01T08:00:00.000Z'));
  let first: TestHub;
  let second: TestHub;
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [{ login: 'kim' }, { login: 'lee' }],
    });
    // Two instances on one database, as behind a load balancer.
    const options = {
      driver: db.driver,
      clock,
      config: {
        server: { publicUrl: HUB_BASE },
        sso: {
          oidc: oidcClient(idp),
        },
      },
    };
    first = await startTestHub(options);
    second = await startTestHub(options);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await idp?.close();
  });
  const rows = (table: typeof ssoKeysTable | typeof ssoUsedStatesTable) =>
    db.driver.forTenant(DEFAULT_TENANT_ID).table(table).count();
  const walk = (t: TestHub, login = 'kim') =>
    walkToCallback({ hub: inProcess(t), hubBase: HUB_BASE, login });

  it('writes no row per start: a hundred starts leave the one signing key and nothing else', async () => {
    const hub = inProcess(first);
    for (let i = 0; i < 100; i += 1) {
      const started = await hub('/auth/sso/start', { headers: {} });
      expect(started.status).toBe(302);
      expect(started.headers.get('set-cookie')).toMatch(/^hub_sso=[\w-]+\.[\w-]+;/);
    }
    expect(await rows(ssoKeysTable)).toBe(1);
    expect(await rows(ssoUsedStatesTable)).toBe(0);
  });

  it('finishes on one instance a sign-in started on the other, once', async () => {
    const w = await walk(first);
    const page = await callback({ hub: inProcess(second) }, w);
    expect(page.status).toBe(200);
    expect(codeOf(await page.text())).toMatch(/^hbi_/);
    const replay = await callback({ hub: inProcess(first) }, w);
    expect(replay.status).toBe(400);
    const html = await replay.text();
    expect(html).toContain('or was used already');
    expect(codeOf(html)).toBeNull();
  });

  it('refuses a cookie whose signature does not check', async () => {
    const w = await walk(first, 'lee');
    const [payload, signature] = w.hubJar.get('hub_sso')!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    // Another tenant (or a later expiry) under the old signature.
    const changed = Buffer.from(JSON.stringify({ ...claims, expiresAt: claims.expiresAt + 1 }));
    w.hubJar.set('hub_sso', `${changed.toString('base64url')}.${signature}`);
    const page = await callback({ hub: inProcess(first) }, w);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('no sign-in in progress');
    // The same cookie with its own signature was fine.
    w.hubJar.set('hub_sso', `${payload}.${signature}`);
    expect((await callback({ hub: inProcess(first) }, w)).status).toBe(200);
  });

  it('refuses a sign-in after its ten minutes, and sweeps the used states that expired', async () => {
    expect(await rows(ssoUsedStatesTable)).toBeGreaterThan(0);
    const late = await walk(first);
    clock.advance(10 * 60_000);
    const page = await callback({ hub: inProcess(first) }, late);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('no sign-in in progress');
    // Every earlier state has expired: the next callback's sweep leaves only its own.
    expect((await callback({ hub: inProcess(second) }, await walk(first))).status).toBe(200);
    expect(await rows(ssoUsedStatesTable)).toBe(1);
  });
});

describe.each(DRIVERS)('migrating a database of an older hub (%s)', (kind) => {
  it('drops the table of sign-ins in progress that every start used to write', async () => {
    const db = await openTestDriver(kind);
    try {
      const migrations = collectMigrations(plugins);
      const upTo = migrations.findIndex((m) => m.id === 'sso/0001-links');
      for (const migration of migrations.slice(0, upTo + 1))
        await db.driver.applyMigration(migration);
      const logins = db.driver.forTenant(DEFAULT_TENANT_ID).table(retiredSsoLoginsTable);
      await logins.insert({
        id: 'old-row',
        keyHash: 'a'.repeat(64),
        stateHash: 'b'.repeat(64),
        expiresAt: '2026-01-01T00:00:00.000Z',
      });
      expect(await logins.count()).toBe(1);
      for (const migration of migrations.slice(upTo + 1)) await db.driver.applyMigration(migration);
      await expect(logins.count()).rejects.toThrow();
      expect(await db.driver.appliedMigrations()).toContain('sso/0002-signed-sign-ins');
    } finally {
      await db.cleanup();
    }
  });
});
