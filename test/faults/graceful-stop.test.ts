/**
 * SIGTERM to a real `workspace-hub start` process under keep-alive load of authenticated reads and
 * creates: no request the hub had received is reset, answers during draining close their
 * connection, every create the client saw succeed is there after a restart, and the process exits
 * as soon as the work is done rather than at `server.shutdownTimeoutMs`. And SIGTERM racing bursts
 * of new connections, each with one request: none written before the signal is reset, including
 * those still in the kernel's accept queue when the signal lands.
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

/** New connections per burst whose request is written before the signal, and racing it. */
const BURST_BEFORE = 32;
const BURST_RACING = 16;
const BURST_ROUNDS = 3;

interface Burst {
  /** When the request was handed to the kernel (performance.now()). */
  writtenAt?: number;
  /** When the first byte of the answer arrived. */
  answeredAt?: number;
  status?: number;
  /** Answered: a whole answer and a clean end; reset: ECONNRESET/EPIPE or an end without an answer. */
  outcome: 'answered' | 'reset' | 'refused';
  error?: string;
}

/** One request on a new raw connection, written as soon as it connects; resolves when it ends. */
function burstRequest(
  port: number,
  secret: string,
  authenticated: boolean,
  onWritten: () => void,
): Promise<Burst> {
  const result: Burst = { outcome: 'reset' };
  const head = authenticated
    ? `GET /auth/session HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n\r\n`
    : 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';
  return new Promise((resolve) => {
    let text = '';
    const socket = connect({ host: '127.0.0.1', port }, () =>
      socket.write(head, (error) => {
        if (error) return;
        result.writtenAt = performance.now();
        onWritten();
      }),
    );
    const finish = () => {
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      if (status) result.status = Number(status[1]);
      if (!result.error && status && complete(text)) result.outcome = 'answered';
      else if (result.error === 'ECONNREFUSED') result.outcome = 'refused';
      socket.destroy();
      resolve(result);
    };
    socket.on('data', (chunk) => {
      result.answeredAt ??= performance.now();
      text += chunk.toString('latin1');
      // An answer before the drain keeps the connection alive: the client is done with it.
      if (complete(text)) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      result.error ??= error.code ?? error.message;
      finish();
    });
    socket.on('close', finish);
  });
}

/** Whether `text` holds a whole answer with a Content-Length body. */
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  return length !== null && text.length - end - 4 >= Number(length[1]);
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

  it('answers every request on a new connection written before SIGTERM, and resets none, in bursts of new connections racing the signal and the closing listener', async () => {
    // Written before the signal (in flight at it, answered); written after it or never.
    const tally = {
      before: 0,
      inFlight: 0,
      answeredBefore: 0,
      after: 0,
      answered: 0,
      reset: 0,
      refused: 0,
    };
    const failures: string[] = [];
    await server?.stop();
    for (let round = 0; round < BURST_ROUNDS; round++) {
      const running = await start();
      const port = Number(new URL(running.url).port);
      const exchanges: Promise<Burst>[] = [];
      let written = 0;
      let someWritten!: () => void;
      const enoughWritten = new Promise<void>((resolve) => (someWritten = resolve));
      const open = () => {
        const exchange = burstRequest(port, secret, exchanges.length % 2 === 0, () => {
          if (++written === BURST_BEFORE / 4) someWritten();
        });
        exchanges.push(exchange);
        return exchange;
      };
      // New connections, each with one request written as soon as it connects: the hub is busy
      // accepting and answering them (most still in the kernel's accept queue) when the signal
      // lands, a few milliseconds after the first requests were written.
      for (let i = 0; i < BURST_BEFORE; i++) open();
      await enoughWritten;
      await new Promise((resolve) => setTimeout(resolve, 2));
      let trickle: Promise<void> | undefined;
      const stopped = await stopTimed(running, () => {
        // Some racing the signal, then one more every millisecond until the listener refuses one:
        // those race the closing of the listener.
        for (let i = 0; i < BURST_RACING; i++) open();
        trickle = (async () => {
          const until = performance.now() + 1_000;
          let refused = false;
          while (!refused && performance.now() < until) {
            void open().then((r) => (refused ||= r.outcome === 'refused'));
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        })();
      });
      await trickle;
      const results = await Promise.all(exchanges);
      const early = (r: Burst) => r.writtenAt !== undefined && r.writtenAt < stopped.sentAt;
      const before = results.filter(early);
      const after = results.filter((r) => !early(r));
      const counts = {
        before: before.length,
        inFlight: before.filter((r) => !(r.answeredAt! < stopped.sentAt)).length,
        answeredBefore: before.filter((r) => r.outcome === 'answered').length,
        after: after.length,
        answered: after.filter((r) => r.outcome === 'answered').length,
        reset: after.filter((r) => r.outcome === 'reset').length,
        refused: after.filter((r) => r.outcome === 'refused').length,
      };
      console.info(
        `burst stop round ${round + 1}: ${counts.before} new connections written before SIGTERM ` +
          `(${counts.inFlight} unanswered at the signal), ${counts.answeredBefore} of them answered; ` +
          `${counts.after} racing the signal or the listener: ${counts.answered} answered, ` +
          `${counts.reset} reset, ${counts.refused} refused; exit after ${Math.round(stopped.ms)} ms`,
      );
      for (const key of Object.keys(tally) as (keyof typeof tally)[]) tally[key] += counts[key];
      expect(stopped.code).toBe(0);
      for (const r of before)
        if (r.outcome !== 'answered' || r.status !== 200)
          failures.push(`round ${round + 1}: ${r.outcome} ${r.status ?? r.error ?? ''}`);
    }
    console.info(`burst stop, ${BURST_ROUNDS} rounds: ${JSON.stringify(tally)}`);
    // The bursts did race the signal: requests were in flight when it was sent.
    expect(tally.inFlight).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  }, 120_000);
});
