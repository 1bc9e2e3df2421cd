/**
 * The embedded SQLite database through real processes: the quick start exactly as the README
 * gives it (CLI commands while the server runs, on the default ./data/hub.db), what the CLI changes
 * is seen by the running server at once, acknowledged writes survive SIGKILL, private file modes
 * under a permissive umask, online backup and restore, a clean stop (Node and Deno) that leaves the
 * whole database in hub.db, and the refusals (old PGlite data, other drivers for backup, commands
 * on a file that is not a hub database).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createProject,
  DENO,
  DENO_CLI,
  DENO_CONFIG,
  withProject,
  type CliResult,
  quietLogging,
  startServer,
  type Project,
  type RunningServer,
} from '../helpers/cli.ts';

const mode = async (path: string) => (await stat(path)).mode & 0o777;
/** The secret printed once, on the line after "will not be shown again" (a token prefix may come earlier). */
const secretIn = (text: string) => /shown again:\s*\n\s*(hbk_[A-Za-z0-9_-]+)/.exec(text)?.[1];

async function call(server: RunningServer, path: string, token: string, init: RequestInit = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { ...init, headers });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

describe('workspace-hub on the embedded SQLite database', () => {
  let project: Project;

  beforeAll(async () => {
    // No db section: the default, ./data/hub.db in the working directory.
    project = await createProject({ ...quietLogging });
  });
  afterAll(() => project?.remove());

  it('refuses a database file that does not exist, naming it and start/migrate, and creates nothing; migrate creates it', async () => {
    const refused = await project.run('user', 'list');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `No hub database at ${join(project.dir, 'data', 'hub.db')} (db.path): the file does not exist. Run "workspace-hub start" or "workspace-hub migrate" to create one there, or point db.path (or --config) at the hub's database.\n`,
    );
    expect(refused.stdout).toBe('');
    expect(await readdir(project.dir)).toEqual(['server.yaml']);

    expect((await project.run('migrate')).code).toBe(0);
    const created = await project.json(
      'user',
      'create',
      '--name',
      'zoe',
      '--collection-access',
      '*',
    );
    expect(created.user).toMatchObject({ name: 'zoe', collectionAccess: ['*'] });
    const { users } = await project.json('user', 'list');
    expect(users.map((user: { name: string }) => user.name)).toContain('zoe');
  }, 60_000);

  it("runs the README's quick start: user and invite commands work while the server runs, and it sees their changes at once", async () => {
    // A new directory, as for a new user: the server makes the database and the first admin.
    const fresh = await createProject({ ...quietLogging });
    const server = await startServer(fresh.dir, ['--port', '0']);
    const project = fresh;
    try {
      expect(server.stdout()).toContain('(database: sqlite)');
      const admin = secretIn(server.stdout());
      expect(admin).toBeDefined();

      // A command as the README writes it, which must succeed with nothing on stderr.
      const runs = async (command: string) => {
        const result = await project.run(...command.split(' '));
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        return result;
      };
      const alice = await runs('user create --name alice --role user --collection-access *');
      const aliceSecret = secretIn(alice.stdout)!;
      const session = await call(server, '/auth/session', aliceSecret);
      expect(session.status).toBe(200);
      expect(session.body.user).toMatchObject({ name: 'alice', role: 'user' });

      const invite = await runs('user invite create --name bob --collection-access *');
      expect(invite.stdout).toMatch(/\/join/);

      // A token the CLI revokes gets 401 on its very next request.
      const aliceId = session.body.user.id as string;
      const token = await project.json(
        'user',
        'token',
        'create',
        '--user',
        aliceId,
        '--name',
        'laptop',
      );
      expect((await call(server, '/auth/session', token.secret)).status).toBe(200);
      expect((await project.run('user', 'token', 'revoke', token.token.id)).code).toBe(0);
      expect((await call(server, '/auth/session', token.secret)).status).toBe(401);

      // A user the CLI deletes is gone for the server.
      expect((await project.run('user', 'delete', aliceId)).code).toBe(0);
      expect((await call(server, '/auth/session', aliceSecret)).status).toBe(401);
      const users = await call(server, '/admin/users', admin!);
      expect(users.status).toBe(200);
      expect(JSON.stringify(users.body)).not.toContain('"alice"');
    } finally {
      expect(await server.stop()).toBe(0);
      await fresh.remove();
    }
  }, 120_000);

  it('keeps every acknowledged write when the server is killed with SIGKILL', async () => {
    const server = await startServer(project.dir, ['--port', '0']);
    const created = await project.json('user', 'create', '--name', 'admin2', '--role', 'admin');
    const names: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call(server, '/admin/users', created.secret, {
        method: 'POST',
        body: JSON.stringify({ name: `crash${i}`, role: 'user' }),
      });
      expect(res.status).toBe(201);
      names.push(`crash${i}`);
    }
    server.child.kill('SIGKILL');
    expect(await server.stop()).toBeNull();
    const { users } = await project.json('user', 'list');
    const listed = users.map((user: { name: string }) => user.name);
    for (const name of names) expect(listed).toContain(name);
  }, 120_000);

  it('backs up the database while the server runs; the copy holds every committed row and opens as a hub', async () => {
    const server = await startServer(project.dir, ['--port', '0']);
    let out: { source: string; out: string; bytes: number };
    try {
      await project.json('user', 'create', '--name', 'before-backup');
      out = await project.json('backup', '--out', 'backup.db');
      expect(out.out).toBe(join(project.dir, 'backup.db'));
      expect(out.bytes).toBeGreaterThan(0);
      const again = await project.run('backup', '--out', 'backup.db');
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('already exists');
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // Restore as the README says: the copy in place of db.path, in a new project.
    await withProject(quietLogging, async (restored) => {
      await mkdir(join(restored.dir, 'data'));
      await copyFile(out.out, join(restored.dir, 'data', 'hub.db'));
      const { users } = await restored.json('user', 'list');
      expect(users.map((user: { name: string }) => user.name)).toEqual(
        expect.arrayContaining(['zoe', 'before-backup', 'crash0']),
      );
    });
  }, 120_000);

  it('says what to run instead of backup on server databases', async () => {
    const cases = [
      [{ driver: 'postgres', host: '127.0.0.1', port: 1, user: 'hub', database: 'hub' }, 'pg_dump'],
      [{ driver: 'mysql', host: '127.0.0.1', port: 1, user: 'hub', database: 'hub' }, 'mysqldump'],
      [{ driver: 'firestore', projectId: 'demo' }, 'gcloud firestore export'],
    ] as const;
    for (const [db, tool] of cases) {
      const name = await project.writeConfig(`${db.driver}.yaml`, { db, ...quietLogging });
      const { code, stderr, stdout } = await project.run(
        'backup',
        '--out',
        'x.db',
        '--config',
        name,
      );
      expect(code).toBe(1);
      expect(stderr).toContain(`db.driver: ${db.driver}`);
      expect(stderr).toContain(tool);
      expect(stdout).toBe('');
    }
  }, 60_000);
});

describe('the embedded database files', () => {
  it('are private (directory 0700; database, -wal, -shm and backup 0600) under umask 000', async () => {
    await withProject(quietLogging, async (project) => {
      const server = await startServer(project.dir, ['--port', '0'], { umask: '000' });
      try {
        // A write, so the -wal and -shm files exist while the server runs.
        const created = await project.run('user', 'create', '--name', 'modes');
        expect(created.code).toBe(0);
        const data = join(project.dir, 'data');
        expect(await mode(data)).toBe(0o700);
        const files = (await readdir(data)).sort();
        // The PID file `start` writes for `workspace-hub reload` sits beside the database.
        expect(files).toEqual(['hub.db', 'hub.db-shm', 'hub.db-wal', 'workspace-hub.pid']);
        for (const file of files)
          expect([file, await mode(join(data, file))]).toEqual([file, 0o600]);
        const backup = await project.run('backup', '--out', 'copy.db', '--json');
        expect(backup.code).toBe(0);
        expect(await mode(join(project.dir, 'copy.db'))).toBe(0o600);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    });
  }, 120_000);

  it('tightens a world-readable database file left by an older version', async () => {
    await withProject(quietLogging, async (project) => {
      expect((await project.run('migrate')).code).toBe(0);
      expect((await project.run('user', 'create', '--name', 'first')).code).toBe(0);
      const db = join(project.dir, 'data', 'hub.db');
      const { chmod } = await import('node:fs/promises');
      await chmod(db, 0o666);
      expect((await project.run('user', 'list')).code).toBe(0);
      expect(await mode(db)).toBe(0o600);
    });
  }, 60_000);

  it('refuses to start with db.driver: pglite, naming sqlite and saying there is no converter', async () => {
    const pglite = { db: { driver: 'pglite', dataDir: './data' }, ...quietLogging };
    await withProject(pglite, async (project) => {
      const { code, stderr, stdout } = await project.run('start', '--port', '0');
      expect(code).toBe(3); // a configuration error (README: exit codes)
      expect(stderr).toContain('db.driver');
      expect(stderr).toContain('use "driver: sqlite"');
      expect(stderr).toContain('no converter');
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stdout).toBe('');
    });
  }, 60_000);

  it('refuses to start beside a PGlite data directory from an earlier version, saying there is no converter', async () => {
    await withProject(quietLogging, async (project) => {
      await mkdir(join(project.dir, 'data'));
      await writeFile(join(project.dir, 'data', 'PG_VERSION'), '17\n');
      const { code, stderr } = await project.run('user', 'list');
      expect(code).toBe(1);
      expect(stderr).toContain('PGlite');
      expect(stderr).toContain('no converter');
      expect((await readdir(join(project.dir, 'data'))).sort()).toEqual(['PG_VERSION']);
    });
  }, 60_000);
});

describe('commands other than start and migrate on a file that is not a hub database', () => {
  it.each([
    ['an empty file', '', 'the file has no workspace-hub schema'],
    ['a text file', 'not a database\n', 'the file is not an SQLite database'],
  ])(
    'refuse %s, naming it, and leave it as it was',
    async (_label, content, reason) => {
      await withProject(quietLogging, async (project) => {
        await mkdir(join(project.dir, 'data'));
        const file = join(project.dir, 'data', 'hub.db');
        await writeFile(file, content);
        for (const command of [
          ['user', 'list'],
          ['audit', 'list'],
          ['export', '--out', 'hub.json'],
          ['backup', '--out', 'copy.db'],
        ]) {
          const { code, stderr } = await project.run(...command);
          expect([command.join(' '), code]).toEqual([command.join(' '), 1]);
          expect(stderr).toContain(`No hub database at ${file} (db.path): ${reason}.`);
          expect(stderr).toContain('"workspace-hub start" or "workspace-hub migrate"');
        }
        expect(await readFile(file, 'utf8')).toBe(content);
        expect((await readdir(project.dir)).sort()).toEqual(['data', 'server.yaml']);
      });
    },
    60_000,
  );
});

/** The Deno CLI: `deno run cli/deno.ts <args>` in `cwd`. */
function runDenoCli(cwd: string, args: readonly string[]): Promise<CliResult> {
  const argv = ['run', '--allow-all', '--config', DENO_CONFIG, DENO_CLI, ...args];
  const env = { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' };
  return new Promise((resolve) =>
    execFile(DENO, argv, { cwd, env, timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

const denoFound = existsSync(DENO);
if (process.env.CI === 'true' && !denoFound)
  throw new Error(`CI=true but the Deno binary is missing at ${DENO}`);

describe.each([
  { runtime: 'node' as const, signal: 'SIGTERM' as const },
  { runtime: 'node' as const, signal: 'SIGINT' as const },
  ...(denoFound
    ? [
        { runtime: 'deno' as const, signal: 'SIGTERM' as const },
        { runtime: 'deno' as const, signal: 'SIGINT' as const },
      ]
    : []),
])('a clean stop ($runtime, $signal)', ({ runtime, signal }) => {
  it('leaves every commit in hub.db itself: a copy of that one file reads back whole', async () => {
    await withProject(quietLogging, async (project) => {
      const server = await startServer(project.dir, ['--port', '0'], { runtime });
      const admin = secretIn(server.stdout())!;
      const names = Array.from({ length: 30 }, (_, i) => `kept-${i}`);
      for (const name of names) {
        const res = await call(server, '/admin/users', admin, {
          method: 'POST',
          body: JSON.stringify({ name, role: 'user' }),
        });
        expect(res.status).toBe(201);
      }
      const exited = new Promise<number | null>((done) => server.child.once('exit', done));
      server.child.kill(signal);
      expect(await exited).toBe(0);

      // What an operator copies as a cold backup: the database file alone.
      const data = join(project.dir, 'data');
      const wal = join(data, 'hub.db-wal');
      if (existsSync(wal)) expect((await stat(wal)).size).toBe(0);
      await withProject(quietLogging, async (copy) => {
        await mkdir(join(copy.dir, 'data'));
        await copyFile(join(data, 'hub.db'), join(copy.dir, 'data', 'hub.db'));
        const listed = await (runtime === 'deno'
          ? runDenoCli(copy.dir, ['user', 'list', '--json'])
          : copy.run('user', 'list', '--json'));
        expect(listed.code, listed.stderr).toBe(0);
        const users = JSON.parse(listed.stdout).users.map((user: { name: string }) => user.name);
        expect(users).toEqual(expect.arrayContaining(['admin', ...names]));
      });
    });
  }, 120_000);
});
