/**
 * The Deno smoke suite (`deno task test:smoke`): runs under Deno, starts the real CLI
 * (`cli/deno.ts start`, served by `Deno.serve`) on the embedded SQLite database (a temporary file)
 * and, when `HUB_TEST_PG_URL` is set, on PostgreSQL, with the Redis throttle when `HUB_TEST_REDIS_URL` is set, and checks the basics over
 * a real socket: health, session, a collection, a discussion round-trip, throttling, SIGHUP and a
 * clean SIGTERM shutdown; on SQLite also a CLI command (under Deno) on the file the server holds. Prints one `ok …` line per check; exits 1 on the first failure. Under
 * CI=true a missing PostgreSQL or Redis is a failure, never a skip.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { createTestDatabase } from '../helpers/databases.ts';
import { freePort } from '../helpers/net.ts';
import { PG_URL_VAR, REDIS_URL_VAR, requireService } from '../helpers/services.ts';

const pgUrl = requireService(PG_URL_VAR);
const redisUrl = requireService(REDIS_URL_VAR);

function check(ok: unknown, what: string): void {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok ${what}`);
}

function redisSection(): string {
  if (!redisUrl) return '';
  const url = new URL(redisUrl);
  const prefix = `smoke-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  return `redis:\n  host: ${url.hostname}\n  port: ${url.port || 6379}\n  keyPrefix: ${prefix}\n  maxFailures: 3\n`;
}

/** Runs `deno run -A cli/deno.ts <args>` to its end. */
function denoCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = dirname(process.execPath);
  const child = spawn('deno', ['run', '--allow-all', 'cli/deno.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function smoke(label: string, db: (dir: string) => string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hub-deno-smoke-'));
  const port = await freePort();
  const config = join(dir, 'server.yaml');
  await writeFile(
    config,
    `server:\n  host: 127.0.0.1\n  port: ${port}\n  shutdownTimeoutMs: 3000\n${db(dir)}${redisSection()}`,
  );
  // Deno rewrites a spawn of its own executable as if it were Node's; `deno` on PATH (with our
  // binary's folder first) is passed through as written.
  const bin = dirname(process.execPath);
  const child = spawn(
    'deno',
    ['run', '--allow-all', 'cli/deno.ts', 'start', '--config', config, '--migrate'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Signals go through process.kill: Deno's ChildProcess.kill() sends nothing once `killed` is
  // set, and any first signal (our SIGHUP) sets it, so a later child.kill('SIGTERM') was a no-op.
  const signal = (name: 'SIGHUP' | 'SIGTERM' | 'SIGKILL') => process.kill(child.pid!, name);
  try {
    for (const started = Date.now(); !/listening on/.test(output);) {
      if (child.exitCode !== null || Date.now() - started > 90_000)
        throw new Error(`${label}: the hub did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const token = /^\s+(hbk_\S+)$/m.exec(output)?.[1];
    check(token, `${label}: start printed the first admin's token`);
    const base = `http://127.0.0.1:${port}`;
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      bearer: string | null = token!,
    ) => {
      const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(base + path, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    };

    check(
      (await call('GET', '/health', undefined, null)).status === 200,
      `${label}: /health answers 200`,
    );
    const openapi = await call('GET', '/openapi.json', undefined, null);
    check(
      openapi.status === 200 && openapi.body?.paths?.['/collections']?.get,
      `${label}: serves /openapi.json`,
    );
    const docBytes = (await (await fetch(`${base}/openapi.json`)).arrayBuffer()).byteLength;
    const accessBytes = async () => {
      for (const started = Date.now(); Date.now() - started < 5_000;) {
        const found = [...output.matchAll(/route"?[=:]"?\/openapi\.json\b.*?bytes"?[=:](\d+)/g)];
        if (found.length >= 2) return found.map((m) => Number(m[1]));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return [];
    };
    const logged = await accessBytes();
    check(
      logged.length >= 2 && logged.every((bytes) => bytes === docBytes),
      `${label}: the access log gives the body's bytes (${logged.join(', ')} of ${docBytes})`,
    );
    check(
      !/route"?[=:]"?\/health\b/.test(output),
      `${label}: the /health probe writes no info line`,
    );
    const script = await fetch(`${base}/docs/redoc.standalone.js`);
    check(
      script.status === 200 && (await script.text()).includes('Redoc'),
      `${label}: serves the /docs script from the installed package`,
    );
    const session = await call('GET', '/auth/session');
    check(
      session.status === 200 && session.body?.user?.name === 'admin',
      `${label}: /auth/session knows the admin`,
    );
    const created = await call('POST', '/collections', { name: 'smoke collection' });
    check(created.status === 200 && created.body?.id, `${label}: creates a collection`);
    const listed = await call('GET', '/collections');
    check(
      listed.body?.collections?.some((c: { id: string }) => c.id === created.body.id),
      `${label}: lists the new collection`,
    );
    const comment = await call('POST', `/collections/${created.body.id}/discussions`, {
      body: 'hello from deno',
    });
    check(comment.status === 200, `${label}: posts a discussion comment`);
    const thread = await call('GET', `/collections/${created.body.id}/discussions`);
    check(
      JSON.stringify(thread.body).includes('hello from deno'),
      `${label}: reads the comment back`,
    );
    if (label === 'sqlite') {
      // Another process on the same database file while the server runs, and the server sees its write.
      const cli = await denoCli([
        'user',
        'create',
        '--name',
        'carol',
        '--role',
        'user',
        '--config',
        config,
        '--json',
      ]);
      check(
        cli.code === 0,
        `${label}: a CLI command under Deno works while the server runs (exit ${cli.code} ${cli.stderr})`,
      );
      const secret = JSON.parse(cli.stdout || '{}').secret;
      const carol = await call('GET', '/auth/session', undefined, secret);
      check(
        carol.status === 200 && carol.body?.user?.name === 'carol',
        `${label}: the server authenticates the user the CLI created`,
      );
    }
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await call('GET', '/auth/session', undefined, 'hbk_not_a_real_token')).status);
    check(
      statuses.includes(401) && statuses.at(-1) === 429,
      `${label}: throttles repeated bad tokens (${redisUrl ? 'Redis' : 'in process'})`,
    );

    signal('SIGHUP');
    await new Promise((resolve) => setTimeout(resolve, 500));
    check(
      (await call('GET', '/health', undefined, null)).status === 200,
      `${label}: still serves after SIGHUP`,
    );

    // An open notice stream (Redis pub/sub behind it when configured) must not hold the shutdown.
    const stream = await fetch(`${base}/notices/stream`, {
      headers: { authorization: `Bearer ${token}` },
    });
    check(stream.status === 200 && stream.body, `${label}: opens a notice stream`);
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    check(first.includes(': connected'), `${label}: the notice stream says it is connected`);
    const streamEnded = (async () => {
      for (;;) if ((await reader.read()).done) return true;
    })().catch(() => true);

    signal('SIGTERM');
    // Bounded: a server that never exits is a failure with its output, not a hung suite.
    let limitTimer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<'timed out'>(
      (resolve) => (limitTimer = setTimeout(resolve, 15_000, 'timed out')),
    );
    const code = await Promise.race([exited, limit]);
    clearTimeout(limitTimer);
    check(code === 0, `${label}: shuts down cleanly on SIGTERM (exit ${code})`);
    check(await streamEnded, `${label}: the notice stream ended on shutdown`);
  } catch (error) {
    console.error(output);
    throw error;
  } finally {
    if (child.exitCode === null) {
      try {
        signal('SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await rm(dir, { recursive: true, force: true });
  }
}

await smoke('sqlite', (dir) => `db:\n  driver: sqlite\n  path: ${join(dir, 'data', 'hub.db')}\n`);
if (pgUrl) {
  const database = await createTestDatabase('postgres');
  const c = database.config as {
    host: string;
    port: number;
    user: string;
    password: string;
    database: string;
  };
  try {
    await smoke(
      'postgres',
      () =>
        `db:\n  driver: postgres\n  host: ${c.host}\n  port: ${c.port}\n  user: ${c.user}\n  password: "${c.password}"\n  database: ${c.database}\n`,
    );
  } finally {
    await database.drop();
  }
}
console.log('deno smoke suite passed');
