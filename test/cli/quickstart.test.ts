/**
 * The README's quick start, followed as written: start the server (what `npm start` runs), then run
 * the quick start's commands against it while it runs, and check through the server's own HTTP API
 * that it sees what they did. The commands are read from README.md, so the test breaks when the
 * README and the product disagree.
 *
 * The only departures: a free port instead of 8788 (in server.yaml, as an operator would set it,
 * and in the URLs of the README's commands), and on PostgreSQL a `db` section and `migrate` first,
 * as the README says for shared databases.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/net.ts';
import { startServer, useCliProject, type RunningServer } from '../helpers/cli.ts';
import { driverAvailable } from '../helpers/databases.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

/** The shell blocks of the README's "Quick start" section, as lines without comments. */
function quickStartBlocks(): string[][] {
  const section = README.split('\n## Quick start\n')[1]!.split('\n## ')[0]!;
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) =>
    match[1]!
      .trim()
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

/** Splits a command line the way sh does for the quoting the README uses ('…' and "…"). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g))
    words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

/** Runs the quick start on a project on a new `kind` database (null: the embedded default). */
function followQuickStart(kind: 'postgres' | null) {
  let port: number;
  beforeAll(async () => {
    port = await freePort();
  });
  const project = useCliProject(kind, () => ({ server: { port } }), { migrate: kind !== null });
  let server: RunningServer;
  let adminSecret: string;

  const api = async (path: string, secret: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    return {
      status: res.status,
      body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text(),
    };
  };

  afterAll(async () => {
    await server?.stop();
  });

  it('starts with the command npm start runs, prints its PID and the first admin token once', async () => {
    const [setup] = quickStartBlocks();
    expect(setup).toEqual(['npm install && npm start']);
    expect(PACKAGE.scripts.start).toBe('node cli/bin.mjs start');
    server = await startServer(project.dir, []);
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    expect(server.stdout()).toContain(`pid ${server.child.pid}`);
    adminSecret = /hbk_[A-Za-z0-9_-]+/.exec(server.stdout())![0];
  });

  it('shows in its start banner a command that runs as printed, one the quick start runs next', async () => {
    const lines = server.stdout().split('\n');
    const hint = lines[lines.findIndex((line) => line.startsWith('Create more users')) + 1]!.trim();
    // As printed: `npx` runs the package's own bin in a checkout (a bare `workspace-hub` is not on
    // PATH there), and the command is one of the quick start's, which the next test runs.
    expect(hint.startsWith('npx workspace-hub ')).toBe(true);
    expect(quickStartBlocks()[1]).toContain(hint);
    const npx = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        'npx',
        ['--no-install', 'workspace-hub', '--version'],
        { cwd: ROOT },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      ),
    );
    expect(npx).toEqual({ code: 0, stdout: `${PACKAGE.version}\n` });
  });

  it('names its API reference in the start banner, which the server serves there', async () => {
    expect(server.stdout()).toContain(`API reference: ${server.url}/docs\n`);
    const docs = await fetch(`${server.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
  });

  it('runs every command of the quick start against the running server, which sees their results', async () => {
    const [, steps] = quickStartBlocks();
    expect(steps!.length).toBeGreaterThan(0);
    const seen: string[] = [];
    for (const line of steps!) {
      const words = shellWords(line.replaceAll('http://127.0.0.1:8788', server.url));
      if (words[0] === 'curl') {
        const url = words.at(-1)!;
        const header = words[words.indexOf('-H') + 1]!;
        expect(header).toBe('Authorization: Bearer hbk_…');
        const res = await fetch(url, { headers: { authorization: `Bearer ${adminSecret}` } });
        expect(res.status, line).toBe(200);
        expect((await res.json()).user).toMatchObject({ name: 'admin', role: 'admin' });
        seen.push('curl');
        continue;
      }
      expect(words.slice(0, 2), line).toEqual(['npx', 'workspace-hub']);
      const { code, stdout, stderr } = await project.run(...words.slice(2));
      expect(code, `${line}\n${stderr}`).toBe(0);
      if (words[2] === 'user' && words[3] === 'show') {
        // A user named instead of an id: the record of the account the step before created.
        const named = words[4]!;
        const users = await api('/admin/users', adminSecret);
        const account = users.body.users.find((user: { name: string }) => user.name === named);
        expect(account, line).toBeDefined();
        expect(stdout, line).toContain(account.id);
        expect(stdout, line).toMatch(new RegExp(`\\b${named}\\b`));
        seen.push(`show ${named}`);
        continue;
      }
      const name = words[words.indexOf('--name') + 1]!;

      // A new account: it is on the server, and its token (printed once) works there.
      const users = await api('/admin/users', adminSecret);
      const account = users.body.users.find((user: { name: string }) => user.name === name);
      expect(account, line).toMatchObject({ name, collectionAccess: ['*'] });
      // The secret is the line after the warning (the "Token prefix" line shows only its start).
      const lines = stdout.split('\n');
      const warning = lines.indexOf('Store this token now; it will not be shown again:');
      const token = warning === -1 ? undefined : lines[warning + 1];
      if (token) {
        const session = await api('/auth/session', token);
        expect(session.status, line).toBe(200);
        expect(session.body.user).toMatchObject({ id: account.id, name });
        seen.push(`token of ${name}`);
      }
      // An invitation: the printed link opens the server's /join page, and its code previews there.
      const link = /^http\S+\/join\?\S+$/m.exec(stdout)?.[0];
      if (link) {
        expect(link.startsWith(`${server.url}/join?`), link).toBe(true);
        const page = await fetch(link);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain(name);
        const secret = decodeURIComponent(new URL(link).hash.replace('#code=', ''));
        const preview = await fetch(`${server.url}/auth/invitations/preview`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ secret }),
        });
        expect(preview.status, line).toBe(200);
        expect((await preview.json()).user).toMatchObject({ name, collectionAccess: ['*'] });
        seen.push(`invitation of ${name}`);
      }
    }
    expect(seen).toEqual(['curl', 'token of alice', 'show alice', 'invitation of bob']);
  });

  it('says which port is held when it is busy, and starts on the port the quick start picks with --port', async () => {
    const section = README.split('\n## Quick start\n')[1]!.split('\n## ')[0]!;
    expect(section).toContain('says which port and exits with code 1');
    // A second start in the same project, whose server.port the running server holds.
    const busy = await project.run('start');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`another process already holds port ${port}`);
    expect(busy.stderr).toContain('--port');
    // The quick start's command, with a free port in place of 8789: npm passes what follows `--`
    // to `start`.
    const [, , pick] = quickStartBlocks();
    expect(pick).toEqual(['npm start -- --port 8789']);
    const other = await freePort();
    const second = await startServer(project.dir, ['--port', String(other)]);
    try {
      expect(second.url).toBe(`http://127.0.0.1:${other}`);
      expect((await fetch(`${second.url}/health`)).status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('reloads the running server with the command the quick start gives', async () => {
    const section = README.split('\n## Quick start\n')[1]!.split('\n## ')[0]!;
    expect(section).toContain('`npx workspace-hub reload`');
    const { code, stdout, stderr } = await project.run('reload');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`(pid ${server.child.pid})`);
    expect(stdout).toMatch(/^metrics\s+unchanged\s*$/m);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    expect(await server.stop()).toBe(0);
  });
}

describe.runIf(driverAvailable('postgres'))('the README quick start, on PostgreSQL', () => {
  followQuickStart('postgres');
});

// The quick start as a new user runs it: no db section, the embedded default database. The CLI runs
// while the server holds that database, which the embedded SQLite default allows (several processes
// may open it); the former embedded PGlite refused it.
describe('the README quick start, on the embedded default database', () => {
  followQuickStart(null);
});
