/**
 * `workspace-hub reload` against a real server process (on PostgreSQL when configured, else SQLite): the PID the server prints and
 * writes, each section's outcome, `logging` applied live, a failed `db` reload logged as an error
 * with its reason, and the PID file gone after a clean stop. On the embedded database: a hub started
 * without a config file reloads the server.yaml created after its start.
 */
import { readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  startServer,
  useCliProject,
  withProject,
  type Project,
  type RunningServer,
} from '../helpers/cli.ts';
import { serverOrEmbedded } from '../helpers/databases.ts';

/** PostgreSQL when HUB_TEST_PG_URL is set (always in CI), else the embedded SQLite. */
const DRIVER = serverOrEmbedded();

const statusesOf = (sections: { section: string; status: string }[]) =>
  Object.fromEntries(sections.map((s) => [s.section, s.status]));

/**
 * `workspace-hub --json reload`, which must succeed and name the server `pid` ran as: each
 * section's status.
 */
async function reloadStatuses(project: Pick<Project, 'run'>, pid: number | undefined) {
  const result = await project.run('--json', 'reload');
  expect(result.code, result.stderr).toBe(0);
  const body = JSON.parse(result.stdout);
  expect(body.pid).toBe(pid);
  return statusesOf(body.sections);
}

describe(`workspace-hub reload (${DRIVER})`, () => {
  const project = useCliProject(DRIVER, { logging: { level: 'error' } }, { migrate: true });
  let server: RunningServer;
  const write = (config: Record<string, unknown>) =>
    writeFile(
      join(project.dir, 'server.yaml'),
      stringify({ db: project.database.config, ...config }),
    );
  /** Where the PID file goes: the embedded database's directory, else ./data. */
  const dataDir = () => {
    const db = project.database.config;
    return db.driver === 'sqlite' ? dirname(db.path) : join(project.dir, 'data');
  };

  beforeAll(async () => {
    server = await startServer(project.dir, ['--port', '0']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('prints its PID at start and writes it to a private PID file in the data directory', async () => {
    expect(server.stdout()).toMatch(
      new RegExp(
        `listening on http://127\\.0\\.0\\.1:\\d+ \\(database: ${DRIVER}\\), pid ${server.child.pid}\\n`,
      ),
    );
    const file = join(dataDir(), 'workspace-hub.pid');
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      pid: server.child.pid,
      url: server.url,
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('reloads the running server and reports every section', async () => {
    const human = await project.run('reload');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`(pid ${server.child.pid})`);
    expect(human.stdout).toMatch(/^db\s+unchanged\s*$/m);
    expect(await reloadStatuses(project, server.child.pid)).toMatchObject({
      db: 'unchanged',
      redis: 'unchanged',
      server: 'unchanged',
      logging: 'unchanged',
    });
  });

  it('applies a logging change live: level and format', async () => {
    const before = server.stderr().length;
    await write({ logging: { level: 'info', format: 'json' } });
    const { code, stdout, stderr } = await project.run('reload', '--json');
    expect(code, stderr).toBe(0);
    expect(statusesOf(JSON.parse(stdout).sections).logging).toBe('reloaded');
    // The reload's own summary is an info line: logged only because the new level applies, as JSON.
    await expect.poll(() => server.stderr().slice(before)).toContain('"level":"info"');
    const line = server
      .stderr()
      .slice(before)
      .split('\n')
      .find((l) => l.includes('Config reloaded'))!;
    expect(JSON.parse(line)).toMatchObject({
      level: 'info',
      msg: expect.stringContaining('logging: reloaded'),
    });
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
  });

  // A database server that refuses connections: needs one (the embedded file has no connection).
  it.runIf(DRIVER === 'postgres')(
    'reports a failed db reload with its reason, logs it as an error and keeps serving',
    async () => {
      const before = server.stderr().length;
      await write({
        db: { ...project.database.config, port: 1, connectionTimeoutMillis: 2000 },
        logging: { level: 'info', format: 'pretty' },
      });
      const json = await project.run('reload', '--json');
      expect(json.code).toBe(1);
      const db = JSON.parse(json.stdout).sections.find(
        (s: { section: string }) => s.section === 'db',
      );
      expect(db).toMatchObject({
        section: 'db',
        status: 'failed',
        error: expect.stringMatching(/ECONNREFUSED|connect/),
      });
      await expect
        .poll(() => server.stderr().slice(before))
        .toMatch(/ERROR Config reload failed for db \(db: failed \(.*ECONNREFUSED/);
      expect(server.stderr().slice(before)).not.toMatch(/INFO\s+Config reloaded/);
      const human = await project.run('reload');
      expect(human.code).toBe(1);
      expect(human.stderr).toMatch(/^Failed: db \(.+\)$/m);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      await write({ logging: { level: 'error' } });
    },
  );

  it("refuses a file whose variable the server's environment lacks, and says that environment is the one that counts", async () => {
    await write({ server: { publicUrl: '${HUB_TEST_NEVER_SET}' }, logging: { level: 'error' } });
    const { code, stderr, stdout } = await project.run('reload');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'Reload failed, nothing changed: ' +
        `${join(await realpath(project.dir), 'server.yaml')}: server.publicUrl: Missing environment variable HUB_TEST_NEVER_SET for config key server.publicUrl\n` +
        'The running server resolves ${…} in its own environment, the one it started with (for a systemd service: its Environment= and EnvironmentFile=), not in this shell: set the variable there and restart the server.\n',
    );
    await write({ logging: { level: 'error' } });
  });

  it('removes the PID file on a clean stop, after which reload finds no server (exit code 4)', async () => {
    expect(await server.stop()).toBe(0);
    await expect(stat(join(dataDir(), 'workspace-hub.pid'))).rejects.toThrow(/ENOENT/);
    const { code, stderr } = await project.run('reload');
    expect(code).toBe(4);
    expect(stderr).toContain('No running server found');
  });
});

// The quick start's path: `npm start` with no server.yaml, then the operator creates one.
describe('workspace-hub reload of a hub started without a config file (embedded database)', () => {
  it('says there is no server.yaml yet, then applies the one created after the start', async () => {
    await withProject(undefined, async (project) => {
      const server = await startServer(project.dir, ['--port', '0']);
      try {
        const file = join(await realpath(project.dir), 'server.yaml');
        const before = await project.run('reload');
        expect(before.code).toBe(1);
        expect(before.stderr).toContain(
          `This hub started without a configuration file (built-in defaults) and there is none at ${file} yet.`,
        );

        await writeFile(file, stringify({ metrics: { enabled: false } }));
        expect(await reloadStatuses(project, server.child.pid)).toMatchObject({
          metrics: 'reloaded',
          db: 'unchanged',
          server: 'unchanged',
        });
        expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    });
  });
});
