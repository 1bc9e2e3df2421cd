/**
 * SIGTERM to a real `workspace-hub start` process under keep-alive load of authenticated reads and
 * creates: no request the hub had received is reset, answers during draining close their
 * connection, every create the client saw succeed is there after a restart, and the process exits
 * as soon as the work is done rather than at `server.shutdownTimeoutMs`.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, driverAvailable, type TestDatabase } from '../helpers/databases.ts';
import {
  createProject,
  DENO,
  quietLogging,
  startServer,
  type Project,
  type RunningServer,
} from '../helpers/cli.ts';

const CONNECTIONS = 32;
const SHUTDOWN_TIMEOUT_MS = 10_000;
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

interface Exchange {
  create: boolean;
  name?: string;
  /** When the request was fully written (performance.now()). */
  writtenAt?: number;
  answeredAt?: number;
  status?: number;
  connection?: string;
  error?: string;
}

function send(
  agent: http.Agent,
  base: string,
  secret: string,
  create: boolean,
  name: string,
): Promise<Exchange> {
  const exchange: Exchange = { create, ...(create ? { name } : {}) };
  return new Promise((resolve) => {
    const request = http.request(`${base}${create ? '/collections' : '/auth/session'}`, {
      agent,
      method: create ? 'POST' : 'GET',
      headers: {
        authorization: `Bearer ${secret}`,
        ...(create ? { 'content-type': 'application/json' } : {}),
      },
    });
    request.on('finish', () => (exchange.writtenAt = performance.now()));
    request.on('response', (response) => {
      exchange.answeredAt = performance.now();
      exchange.status = response.statusCode;
      exchange.connection = response.headers.connection;
      response.resume();
      response.on('end', () => resolve(exchange));
      response.on('error', (error: NodeJS.ErrnoException) => {
        exchange.error = error.code ?? error.message;
        resolve(exchange);
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      exchange.error = error.code ?? error.message;
      resolve(exchange);
    });
    request.end(create ? JSON.stringify({ name }) : undefined);
  });
}

const denoFound = existsSync(DENO);
if (process.env.CI === 'true' && !denoFound)
  throw new Error(`CI=true but the Deno binary is missing at ${DENO}`);

const targets = [
  { label: 'Node, embedded database', pg: false, runtime: 'node' as const },
  ...(driverAvailable('postgres')
    ? [{ label: 'Node, PostgreSQL', pg: true, runtime: 'node' as const }]
    : []),
  ...(denoFound ? [{ label: 'Deno, embedded database', pg: false, runtime: 'deno' as const }] : []),
];

describe.each(targets)('graceful stop of a running hub ($label)', ({ pg, runtime }) => {
  let project: Project;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  let secret: string;

  const start = async () => {
    server = await startServer(project.dir, ['--port', '0', ...(pg ? ['--migrate'] : [])], {
      runtime,
    });
    return server;
  };
  /** Sends SIGTERM and resolves with the exit code and the milliseconds until the process exited. */
  const stopTimed = async (running: RunningServer, afterSignal?: () => void) => {
    const exited = new Promise<number | null>((resolve) =>
      running.child.once('exit', (code) => resolve(code)),
    );
    const sentAt = performance.now();
    running.child.kill('SIGTERM');
    afterSignal?.();
    const code = await exited;
    return { code, ms: performance.now() - sentAt, sentAt };
  };

  beforeAll(async () => {
    database = pg ? await createTestDatabase('postgres') : undefined;
    project = await createProject({
      ...(database ? { db: database.config } : {}),
      server: { shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS },
      ...quietLogging,
    });
    const first = await start();
    secret = /hbk_[A-Za-z0-9_-]+/.exec(first.stdout())![0];
  });
  afterAll(async () => {
    await server?.stop();
    await project?.remove();
    await database?.drop();
  });

  it('resets no request written before SIGTERM, closes the connection of answers while draining, keeps every acknowledged create, and exits before the deadline', async () => {
    const running = server!;
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const exchanges: Exchange[] = [];
    let counter = 0;
    const worker = async (id: number) => {
      for (let i = 0; ; i++) {
        const exchange = await send(
          agent,
          running.url,
          secret,
          i % 2 === 1,
          `load ${id}-${counter++}`,
        );
        exchanges.push(exchange);
        // Once the hub is going away, a refused connection ends this client.
        if (exchange.error) break;
      }
    };
    const workers = Array.from({ length: CONNECTIONS }, (_, id) => worker(id));
    // Load for a while, and until every connection has carried a few answers (a busy machine is slow).
    const loadedAt = performance.now();
    while (performance.now() - loadedAt < 1_000 || exchanges.length < 3 * CONNECTIONS)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = await stopTimed(running);
    await Promise.all(workers);
    agent.destroy();

    const beforeSignal = exchanges.filter(
      (e) => e.writtenAt !== undefined && e.writtenAt < stopped.sentAt,
    );
    const resets = exchanges.filter((e) => e.error && RESET_CODES.has(e.error));
    const resetBeforeSignal = beforeSignal.filter((e) => e.error);
    const firstClose = Math.min(
      ...exchanges.filter((e) => e.connection === 'close').map((e) => e.answeredAt!),
    );
    // Deno leaves HTTP/1.1's default keep-alive unsaid; Node writes it out.
    const keptAliveAfterClose = exchanges.filter(
      (e) => e.writtenAt! > firstClose && e.status !== undefined && e.connection !== 'close',
    );
    console.info(
      `graceful stop: ${exchanges.length} requests, ${beforeSignal.length} written before SIGTERM, ` +
        `${resetBeforeSignal.length} of them reset, ${resets.length} resets in all, ` +
        `${exchanges.filter((e) => e.connection === 'close').length} answers with Connection: close, exit after ${Math.round(stopped.ms)} ms`,
    );

    expect(stopped.code).toBe(0);
    expect(beforeSignal.length).toBeGreaterThan(CONNECTIONS);
    expect(resetBeforeSignal).toEqual([]);
    // Every answer before SIGTERM succeeded; a request the hub received is answered, never dropped.
    expect(beforeSignal.filter((e) => e.status !== 200)).toEqual([]);
    expect(Number.isFinite(firstClose)).toBe(true);
    expect(keptAliveAfterClose).toEqual([]);
    expect(stopped.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS / 2);

    const restarted = await start();
    const response = await fetch(`${restarted.url}/collections`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(200);
    const names = new Set(
      ((await response.json()).collections as { name: string }[]).map((c) => c.name),
    );
    const acknowledged = exchanges.filter((e) => e.create && e.status === 200);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(acknowledged.filter((e) => !names.has(e.name!)).map((e) => e.name)).toEqual([]);
    // A create the client saw fail must not have been written behind its back.
    expect(
      exchanges.filter((e) => e.create && e.error && names.has(e.name!)).map((e) => e.name),
    ).toEqual([]);
  }, 120_000);

  it('exits within a few seconds of SIGTERM with idle keep-alive connections and a notice stream open, ending the stream with its goodbye and answering requests sent as the signal lands', async () => {
    const running = server!;
    const port = Number(new URL(running.url).port);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => send(agent, running.url, secret, false, `idle ${i}`)),
    );
    /** A raw socket, to see exactly how it ends: after what bytes, and with a FIN or a reset. */
    const rawSocket = async (head: string, ready: string) => {
      const socket = connect({ host: '127.0.0.1', port });
      let text = '';
      const ended = new Promise<string>((resolve) => {
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        socket.on('end', () => resolve('end'));
      });
      await new Promise((resolve) => socket.once('connect', resolve));
      const seen = new Promise<void>((resolve) =>
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1');
          if (text.includes(ready)) resolve();
        }),
      );
      socket.write(head);
      await seen;
      return { socket, ended, text: () => text };
    };
    const idle = await rawSocket('GET /health HTTP/1.1\r\nHost: x\r\n\r\n', '"status"');
    const racing = await rawSocket('GET /health HTTP/1.1\r\nHost: x\r\n\r\n', '"status"');
    const partial = await rawSocket('GET /health HTTP/1.1\r\nHost: x\r\n\r\n', '"status"');
    const stream = await rawSocket(
      `GET /notices/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n\r\n`,
      ': connected',
    );

    const [racingAnswered, partialAnswered] = [racing.text().length, partial.text().length];
    // Half a request head before the signal, the rest after: the hub is draining when it completes.
    partial.socket.write('GET /health HTTP/1.1\r\nHo');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A request on an idle keep-alive socket written right as the signal is sent: the hub may read
    // it before or after it starts draining, but must answer it, not reset it.
    const stopped = await stopTimed(running, () => {
      racing.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      setTimeout(() => partial.socket.write('st: x\r\n\r\n'), 50);
    });
    console.info(
      `graceful stop with nothing in flight but a notice stream: exit after ${Math.round(stopped.ms)} ms`,
    );
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(3_000);
    expect(await idle.ended).toBe('end');
    expect(await stream.ended).toBe('end');
    expect(await racing.ended).toBe('end');
    expect(racing.text().slice(racingAnswered)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await partial.ended).toBe('end');
    const late = partial.text().slice(partialAnswered);
    expect(late).toMatch(/^HTTP\/1\.1 200 /);
    expect(late.toLowerCase()).toContain('connection: close');
    // The goodbye comment, then the end of the chunked body: the stream finished, it was not cut.
    expect(stream.text()).toContain(': shutdown');
    expect(stream.text().endsWith('0\r\n\r\n')).toBe(true);
    for (const raw of [idle, racing, partial, stream]) raw.socket.destroy();
    agent.destroy();
  }, 60_000);
});
