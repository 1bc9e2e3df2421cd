/**
 * The CLI on the embedded PGlite database in a temporary data directory: it migrates by itself,
 * and a data directory held by a running server is refused instead of being opened twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, quietLogging, startServer, type Project } from './helpers.ts';

describe('workspace-hub on PGlite', () => {
  let project: Project;

  beforeAll(async () => {
    project = await createProject({ db: { driver: 'pglite', dataDir: './data' }, ...quietLogging });
  });
  afterAll(() => project?.remove());

  it('creates and lists users on a new data directory', async () => {
    const created = await project.json('user', 'create', '--name', 'alice', '--collection-access', '*');
    expect(created.user).toMatchObject({ name: 'alice', collectionAccess: ['*'] });
    expect(created.secret).toMatch(/^hbk_/);
    const { users } = await project.json('user', 'list');
    expect(users.map((user: { name: string }) => user.name)).toEqual(['alice']);
  }, 120_000);

  it('refuses to open a data directory a running server holds, and the server still stops cleanly', async () => {
    const server = await startServer(project.dir, ['--port', '0']);
    try {
      expect(server.stdout()).toContain('(database: pglite)');
      const { code, stderr, stdout } = await project.run('user', 'list');
      expect(code).toBe(1);
      expect(stderr).toMatch(/in use/i);
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stdout).toBe('');
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // The data survived the refused second open.
    const { users } = await project.json('user', 'list');
    expect(users.map((user: { name: string }) => user.name)).toEqual(['alice']);
  }, 120_000);
});
