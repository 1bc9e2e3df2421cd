/**
 * `workspace-hub audit list|export` as real processes, on the events other commands leave (actor
 * null, `via: "cli"`), and export/import carrying the log to another database.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietLogging, useCliProject } from '../helpers/cli.ts';
import { driverAvailable, serverOrEmbedded } from '../helpers/databases.ts';

/** PostgreSQL when HUB_TEST_PG_URL is set (always in CI), else the embedded SQLite. */
const DRIVER = serverOrEmbedded();
const TARGET = driverAvailable('mysql') ? 'mysql' : DRIVER;
const CONFIG = { ...quietLogging, multitenancy: { enabled: true } };

describe(`workspace-hub audit (processes, ${DRIVER}, import into ${TARGET})`, () => {
  const project = useCliProject(DRIVER, CONFIG, { migrate: true });
  const target = useCliProject(TARGET, CONFIG, { migrate: true });
  const secrets: string[] = [];

  it('lists what commands did, as the command line, newest first, with filters', async () => {
    const created = await project.json('user', 'create', '--name', 'alice');
    secrets.push(created.secret);
    const issued = await project.json(
      'user',
      'token',
      'create',
      '--user',
      'alice',
      '--name',
      'cli',
    );
    secrets.push(issued.secret);
    await project.json('user', 'token', 'revoke', issued.token.id);
    await project.json('user', 'update', 'alice', '--name', 'alicia');
    await project.json('tenant', 'create', 'acme', '--name', 'Acme');
    await project.json('user', 'delete', 'alicia');
    await project.json('tenant', 'delete', 'acme');
    const invited = await project.json('user', 'invite', 'create', '--name', 'bob');
    secrets.push(invited.secret);
    await project.json('user', 'invite', 'revoke', invited.invitation.id);

    const { events } = await project.json('audit', 'list');
    // Events of one transaction share a millisecond, so only the set is compared, and the last.
    expect(events.map((e: any) => e.action).sort()).toEqual(
      [
        'invitation.revoked',
        'invitation.created',
        'user.created',
        'tenant.deleted',
        'user.deleted',
        'tenant.created',
        'user.updated',
        'token.revoked',
        'token.created',
        'token.created',
        'user.created',
      ].sort(),
    );
    expect(events[0].action).toBe('invitation.revoked');
    expect(events.find((e: any) => e.action === 'tenant.deleted').target).toEqual({
      kind: 'tenant',
      id: 'acme',
      name: 'Acme',
    });
    for (const event of events) {
      expect(event.actor).toBeNull();
      expect(event.details.via).toBe('cli');
      expect(event.ip).toBeNull();
    }
    const updated = events.find((e: any) => e.action === 'user.updated');
    expect(updated.details).toMatchObject({ before: { name: 'alice' }, after: { name: 'alicia' } });
    const text = JSON.stringify(events);
    for (const secret of secrets) expect(text).not.toContain(secret);

    const filtered = await project.json(
      'audit',
      'list',
      '--action',
      'token.created',
      '--limit',
      '1',
    );
    expect(filtered.events).toHaveLength(1);
    expect(filtered.events[0].target.id).toBe(issued.token.id);
    expect((await project.json('audit', 'list', '--since', '2999-01-01')).events).toEqual([]);

    const table = await project.run('audit', 'list', '--limit', '2');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^AT\s+ACTION\s+ACTOR\s+TARGET\s+IP/);
    expect(table.stdout).toMatch(/invitation\.revoked +\(cli\) +invitation bob +-/);
  }, 240_000);

  it('refuses bad flags before opening the database, and unknown users', async () => {
    const since = await project.run('audit', 'list', '--since', 'yesterday');
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since must be an ISO 8601');
    const limit = await project.run('audit', 'list', '--limit', '0');
    expect(limit.code).toBe(2);
    expect(await project.fails('audit', 'list', '--user', 'nobody')).toContain(
      'No user found with id or name nobody.',
    );
  }, 120_000);

  it('exports JSON lines to a new file readable by its owner only', async () => {
    const listed = (await project.json('audit', 'list', '--limit', '1000')).events;
    const result = await project.json('audit', 'export', '--out', 'audit.jsonl');
    const file = join(project.dir, 'audit.jsonl');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(file, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(result.count).toBe(lines.length);
    expect(lines).toEqual(listed);
    expect(await project.fails('audit', 'export', '--out', 'audit.jsonl')).toContain(
      'already exists',
    );
    const since = await project.json(
      'audit',
      'export',
      '--out',
      'none.jsonl',
      '--since',
      '2999-01-01',
    );
    expect(since.count).toBe(0);
  }, 120_000);

  it('records export.run and import.run, and the import carries the events', async () => {
    await project.json('export', '--out', 'hub.json');
    const exported = (await project.json('audit', 'list', '--action', 'export.run')).events;
    expect(exported).toHaveLength(1);
    expect(exported[0]).toMatchObject({
      actor: null,
      target: { kind: 'file', name: 'hub.json' },
      details: { via: 'cli' },
    });
    expect(exported[0].details.rowCount).toBeGreaterThan(0);

    await target.json('import', join(project.dir, 'hub.json'));
    const carried = (await target.json('audit', 'list', '--limit', '1000')).events;
    const actions = carried.map((e: any) => e.action);
    expect(actions[0]).toBe('import.run');
    expect(actions).toEqual(
      expect.arrayContaining(['user.created', 'token.revoked', 'user.deleted']),
    );
  }, 240_000);
});
