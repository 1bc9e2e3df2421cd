/**
 * What an identity provider names reaches the audit log escaped and capped: a refused sign-in of
 * `eve\u202eexe.txt\u009b2J` (a right-to-left override and a one-byte CSI) is stored, answered by
 * `GET /admin/audit` and written by `workspace-hub audit export` with both as `\uXXXX` text, and
 * the export file, read back byte by byte, holds neither character. Rows stored raw before are
 * escaped when read. A real provider, a real CLI process, one SQLite database.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { timeOrderedId } from '../../kernel/time-id.ts';
import { auditEventsTable } from '../../plugins/audit/tables.ts';
import { quietLogging, useCliProject } from '../helpers/cli.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { oidcClient, startTestIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { callback, inProcess, walkToCallback } from './browserless.ts';

const HUB_BASE = 'http://hub.example.test';
const EVIL = 'eve\u202eexe.txt\u009b2J';
const ESCAPED = 'eve\\u202eexe.txt\\u009b2J';

describe('provider-supplied names in the audit log', () => {
  const project = useCliProject('sqlite', quietLogging, { migrate: true });
  let idp: TestIdp;
  let driver: StorageDriver;
  let t: TestHub;
  beforeAll(async () => {
    idp = await startTestIdp({
      redirectUri: `${HUB_BASE}/auth/sso/callback`,
      people: [
        { login: 'eve', username: EVIL, groups: ['contractors'] },
        { login: 'long', username: `${'x'.repeat(5000)}\u202e`, groups: [] },
      ],
    });
    driver = await createDriver(project.database.config);
    t = await startTestHub({
      driver,
      config: {
        server: { publicUrl: HUB_BASE },
        sso: {
          oidc: {
            ...oidcClient(idp),
            allowedGroups: ['hub-users'],
          },
        },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await driver?.close();
    await idp?.close();
  });
  const refuse = async (login: string) => {
    const hub = inProcess(t);
    const page = await callback({ hub }, await walkToCallback({ hub, hubBase: HUB_BASE, login }));
    expect(page.status).toBe(403);
  };

  it('stores and answers the name escaped, and caps its length', async () => {
    await refuse('eve');
    await refuse('long');
    const events = (await t.request('GET', '/admin/audit?action=sso.refused')).body.events as {
      target: { id: string; name: string };
    }[];
    expect(events.find((e) => e.target.id === 'eve')!.target.name).toBe(ESCAPED);
    const long = events.find((e) => e.target.id === 'long')!.target.name;
    expect([...long]).toHaveLength(255);
    expect(long.endsWith('…')).toBe(true);
    const stored = await driver
      .forTenant(DEFAULT_TENANT_ID)
      .table(auditEventsTable)
      .find({ where: { action: 'sso.refused', targetId: 'eve' } });
    expect(stored.map((row) => row.targetName)).toEqual([ESCAPED]);
  });

  it('escapes a row stored raw before, when read', async () => {
    await driver
      .forTenant(DEFAULT_TENANT_ID)
      .table(auditEventsTable)
      .insert({
        id: timeOrderedId(new Date().toISOString()),
        at: new Date().toISOString(),
        action: 'sso.refused',
        actorId: null,
        actorName: null,
        targetKind: 'user',
        targetId: 'raw',
        targetName: EVIL,
        ip: null,
        requestId: null,
        details: { reason: `not ${EVIL}`, [EVIL]: [EVIL] },
      });
    const answer = await t.request('GET', '/admin/audit?targetId=raw');
    expect(answer.text).not.toMatch(/[\u202e\u009b]/);
    expect(answer.body.events[0]).toMatchObject({
      target: { name: ESCAPED },
      details: { reason: `not ${ESCAPED}`, [ESCAPED]: [ESCAPED] },
    });
  });

  it('writes the export with every such character escaped, read back byte by byte', async () => {
    const exported = await project.run('audit', 'export', '--out', 'audit.jsonl');
    expect(exported.code, exported.stderr).toBe(0);
    const bytes = await readFile(join(project.dir, 'audit.jsonl'));
    // U+202E is E2 80 AE in UTF-8, U+009B is C2 9B: neither sequence is in the file.
    expect(bytes.includes(Buffer.from([0xe2, 0x80, 0xae]))).toBe(false);
    expect(bytes.includes(Buffer.from([0xc2, 0x9b]))).toBe(false);
    expect(bytes.every((byte) => byte >= 0x20 || byte === 0x0a)).toBe(true);
    const events = bytes
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((e) => e.target.id === 'eve' || e.target.id === 'raw')).toEqual([
      expect.objectContaining({ target: expect.objectContaining({ name: ESCAPED }) }),
      expect.objectContaining({ target: expect.objectContaining({ name: ESCAPED }) }),
    ]);
  });
});
