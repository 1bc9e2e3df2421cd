/** `migrate` and `start` on PostgreSQL when configured, else the embedded SQLite: schema checks, the first admin, graceful shutdown. */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietLogging, startServer, useCliProject } from '../helpers/cli.ts';
import { freePort } from '../helpers/net.ts';
import { serverOrEmbedded } from '../helpers/databases.ts';

/** PostgreSQL when HUB_TEST_PG_URL is set (always in CI), else the embedded SQLite. */
const DRIVER = serverOrEmbedded();

describe(`workspace-hub migrate and start (${DRIVER})`, () => {
  const project = useCliProject(DRIVER, quietLogging);

  // The embedded SQLite database is always migrated at start: only a server database can need it.
  it.runIf(DRIVER === 'postgres')(
    'refuses to start on a database that needs migrations',
    async () => {
      const { code, stderr, stdout } = await project.run('start', '--port', '0');
      expect(code).toBe(1);
      expect(stderr).toContain('workspace-hub migrate');
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stdout).toBe('');
    },
  );

  it('starts with --migrate, prints the first admin once, and stops on SIGTERM with exit code 0', async () => {
    const server = await startServer(project.dir, ['--migrate', '--port', '0']);
    const stdout = server.stdout();
    expect(stdout).toMatch(
      new RegExp(
        `workspace-hub \\S+ listening on http://127\\.0\\.0\\.1:\\d+ \\(database: ${DRIVER}\\)`,
      ),
    );
    expect(stdout).toContain('"admin"');
    expect(stdout).toContain('it will not be shown again');
    expect(stdout).toContain(
      "npx workspace-hub user create --name alice --role user --collection-access '*'",
    );
    const secret = /hbk_[A-Za-z0-9_-]+/.exec(stdout)?.[0];
    expect(secret).toBeDefined();

    const session = await fetch(`${server.url}/auth/session`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(session.status).toBe(200);
    expect((await session.json()).user).toMatchObject({ name: 'admin', role: 'admin' });

    expect(await server.stop()).toBe(0);

    const again = await startServer(project.dir, ['--port', '0']);
    expect(again.stdout()).not.toContain('hbk_');
    expect(again.stdout()).not.toContain('"admin"');
    expect(await again.stop()).toBe(0);
  });

  it('reports an up-to-date database after migrations ran', async () => {
    expect(await project.json('migrate')).toEqual({ applied: [] });
    const human = await project.run('migrate');
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe('Database is up to date.');
  });
});

describe(`workspace-hub migrate on a new database (${DRIVER})`, () => {
  const project = useCliProject(DRIVER, quietLogging);

  it('applies every migration and provisions the default tenant, silently on stderr when piped', async () => {
    const { code, stdout, stderr } = await project.run('migrate');
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(
      /^Applied \d+ migration\(s\), in dependency order: kernel\/0001-identity/,
    );
    const tenants = await project.database.query('SELECT id FROM tenants');
    expect(tenants.map((row) => row.id)).toEqual(['__default__']);
  });
});

describe(`workspace-hub migrate on a terminal (${DRIVER})`, () => {
  const project = useCliProject(DRIVER, quietLogging);

  /** Runs the CLI under a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
  const onTerminal = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));
      const command = [process.execPath, bin, ...args].map((arg) => `'${arg}'`).join(' ');
      execFile(
        'script',
        ['-qec', command, '/dev/null'],
        { cwd: project.dir, timeout: 90_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });

  it('shows each migration as it runs, then clears the progress line', async () => {
    const output = await onTerminal('migrate');
    expect(output).toMatch(/\r\x1b\[2KMigrating 1\/\d+: kernel\/0001-identity/);
    expect(output).toContain('\r\x1b[2KApplied ');
  });

  it('stays quiet on a terminal with --json', async () => {
    await project.database.query('DELETE FROM hub_migrations WHERE id = $1', [
      'llm-proxy/0001-usage',
    ]);
    await project.database.query('DROP TABLE IF EXISTS llm_usage');
    await project.database.query('DROP TABLE IF EXISTS llm_usage_log');
    const output = await onTerminal('migrate', '--json');
    expect(output).not.toContain('Migrating');
    expect(JSON.parse(output)).toEqual({ applied: ['llm-proxy/0001-usage'] });
  });
});

describe('workspace-hub start on a port another process holds (embedded database)', () => {
  let port: number;
  let holder: net.Server;
  beforeAll(async () => {
    port = await freePort();
    holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => holder?.close(resolve));
  });
  const project = useCliProject(null, () => ({ ...quietLogging, server: { port } }));

  it('says which address is taken, by another process, and how to pick another port, with exit code 1', async () => {
    const { code, stderr } = await project.run('start');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `Cannot listen on 127.0.0.1:${port}: another process already holds port ${port} ` +
        '(another hub still running?). Pick another port with --port <port> or server.port in ' +
        `${join(await realpath(project.dir), 'server.yaml')} (--port 0 picks a free one).`,
    );
  });

  it('says so as a JSON error with --json and --port', async () => {
    const { code, stderr } = await project.run('start', '--port', String(port), '--json');
    expect(code).toBe(1);
    expect(JSON.parse(stderr).error).toMatch(
      new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port}: another process already holds`),
    );
  });
});
