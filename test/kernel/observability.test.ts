/**
 * Operability: liveness and readiness probes, Prometheus metrics and the access log, through a
 * real hub on every configured driver (and PostgreSQL behind a TCP proxy the test can cut or stall).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig, validateConfig } from '../../kernel/config/load.ts';
import { createHub } from '../../kernel/hub.ts';
import { nodeClientIp, serveNode } from '../../kernel/runtime/node.ts';
import { createLogger } from '../../kernel/log.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { col, defineTable } from '../../kernel/storage/table.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { plugins } from '../../plugins/index.ts';
import { createTestDatabase, driverAvailable } from '../helpers/databases.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import {
  startTestHub,
  useTestDriver,
  useTestHub,
  withTestHub,
  type TestHub,
} from '../helpers/hub.ts';
import { closedPort } from '../helpers/net.ts';

/** A scraper on the hub's own host: without a token, /metrics answers only to loopback clients. */
const LOCAL = '127.0.0.1';

/** The migrations record as a declared table, so a test can forget one migration on any driver. */
const migrationsRecord = defineTable({
  name: 'hub_migrations',
  tenantScoped: false,
  columns: { id: col.id(), appliedAt: col.timestamp() },
});

describe.each(httpDrivers())('probes on %s', (kind) => {
  const t = useTestHub(kind);

  it('GET /healthz answers 200 without a token', async () => {
    const res = await t.request('GET', '/healthz', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 with every check ok when the database answers and the schema is current', async () => {
    const res = await t.request('GET', '/readyz', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', schema: 'ok', redis: 'not configured' },
    });
  });

  it('GET /health still answers as the spec has it', async () => {
    const res = await t.request('GET', '/health', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: expect.any(String) });
  });

  it('GET /readyz answers 503 naming the schema when a migration is missing from the record', async () => {
    const last = t.hub.migrations.at(-1)!;
    const record = t.driver.unscoped().table(migrationsRecord);
    const saved = await record.get(last.id);
    expect(saved).not.toBeNull();
    await record.delete(last.id);
    try {
      const res = await t.request('GET', '/readyz', { token: null });
      expect(res.status).toBe(503);
      expect(res.body.checks).toMatchObject({
        database: 'ok',
        schema: expect.stringContaining('1 pending migration'),
      });
      expect(res.body.error).toContain('schema');
    } finally {
      await record.insert(saved!);
    }
    expect((await t.request('GET', '/readyz', { token: null })).status).toBe(200);
  });
});

describe('readiness on failing dependencies', () => {
  const db = useTestDriver(httpDrivers()[0]!);

  it('answers 503 naming redis when the configured Redis cannot be reached, and never throttles the probe', async () => {
    const port = await closedPort();
    await withTestHub(
      {
        driver: db.driver,
        config: { redis: { host: '127.0.0.1', port, connectTimeoutMillis: 300, maxFailures: 1 } },
      },
      async (t) => {
        for (let i = 0; i < 3; i++) {
          const res = await t.request('GET', '/readyz', { token: 'hbk_not-a-real-token-at-all' });
          expect(res.status).toBe(503);
          expect(res.body.checks).toMatchObject({
            database: 'ok',
            schema: 'ok',
            // The first failed PING opens Redis's circuit breaker; later checks say so at once.
            redis: i === 0 ? 'unreachable' : 'circuit open',
          });
          expect(res.body.error).toMatch(/redis/);
        }
        expect((await t.request('GET', '/healthz', { token: null })).status).toBe(200);
      },
    );
  });

  it('answers 503 once shutdown has begun', async () => {
    await withTestHub({ driver: db.driver }, async (t) => {
      expect((await t.request('GET', '/readyz', { token: null })).status).toBe(200);
      t.hub.beginShutdown();
      const res = await t.request('GET', '/readyz', { token: null });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toEqual({
        error: expect.stringContaining('shutting down'),
        code: 'not_ready',
        checks: { shutdown: 'in progress' },
      });
      expect((await t.request('GET', '/healthz', { token: null })).status).toBe(200);
    });
  });
});

/** A TCP proxy in front of PostgreSQL that the test can cut (refuse) or stall (accept, never answer). */
async function startProxy(target: { host: string; port: number }) {
  let mode: 'open' | 'cut' | 'stall' = 'open';
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (mode === 'cut') return void client.destroy();
    if (mode === 'stall') return; // accepted, never forwarded
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('data', (chunk) => (mode === 'open' ? upstream.write(chunk) : undefined));
    upstream.on('data', (chunk) => (mode === 'open' ? client.write(chunk) : undefined));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    set(next: typeof mode) {
      mode = next;
      if (next === 'cut') for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.runIf(driverAvailable('postgres'))('readiness when PostgreSQL stops or stalls', () => {
  it('answers 503 naming the database within the check timeout, and 200 again once it is back', async () => {
    const database = await createTestDatabase('postgres');
    if (database.config.driver !== 'postgres') throw new Error('expected a postgres config');
    const proxy = await startProxy({ host: database.config.host, port: database.config.port });
    const driver = await createDriver({
      ...database.config,
      port: proxy.port,
      connectionTimeoutMillis: 1_000,
    });
    const t = await startTestHub({ driver, ip: LOCAL });
    try {
      expect((await t.request('GET', '/readyz', { token: null })).status).toBe(200);
      // The pool's counts (PostgreSQL exposes them).
      const metrics = (await t.request('GET', '/metrics', { token: null })).text;
      expect(
        Number(/^workspace_hub_db_pool_connections (\d+)/m.exec(metrics)?.[1]),
      ).toBeGreaterThan(0);
      expect(metrics).toMatch(/^workspace_hub_db_pool_in_use \d+/m);
      expect(metrics).toMatch(/^workspace_hub_db_pool_waiting 0/m);

      proxy.set('stall');
      // A stalled database: the pool's connections hang; the probe must not.
      const started = Date.now();
      const stalled = await t.request('GET', '/readyz', { token: null });
      expect(stalled.status).toBe(503);
      expect(stalled.body.checks.database).not.toBe('ok');
      expect(stalled.body.error).toContain('database');
      expect(Date.now() - started).toBeLessThan(8_000);

      proxy.set('cut');
      const stopped = await t.request('GET', '/readyz', { token: null });
      expect(stopped.status).toBe(503);
      expect(stopped.body.checks.database).toBe('unreachable');
      expect((await t.request('GET', '/healthz', { token: null })).status).toBe(200);

      proxy.set('open');
      let back = 0;
      for (let i = 0; i < 50 && back !== 200; i++) {
        back = (await t.request('GET', '/readyz', { token: null })).status;
        if (back !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(back).toBe(200);
    } finally {
      await t.close();
      await driver.close().catch(() => undefined);
      await proxy.close();
      await database.drop();
    }
  }, 60_000);
});

describe('metrics', () => {
  const db = useTestDriver(httpDrivers()[0]!);

  it('counts requests by method, route template and status, never by raw path', async () => {
    await withTestHub({ driver: db.driver, ip: LOCAL }, async (t) => {
      expect((await t.request('GET', '/run-results/some-raw-id-123')).status).toBe(404);
      expect((await t.request('GET', '/no/such/path/xyz')).status).toBe(404);
      const res = await t.request('GET', '/metrics', { token: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(res.text).toMatch(
        /workspace_hub_http_requests_total\{method="GET",route="\/run-results\/:id",status="404"\} 1/,
      );
      expect(res.text).toMatch(
        /workspace_hub_http_requests_total\{method="GET",route="\(unmatched\)",status="404"\} 1/,
      );
      expect(res.text).toMatch(
        /workspace_hub_http_request_duration_seconds_bucket\{le="[0-9.]+",method="GET",route="\/run-results\/:id",status="404"\}/,
      );
      expect(res.text).not.toContain('some-raw-id-123');
      expect(res.text).not.toContain('/no/such/path');
      // The runtime's process metrics and the plugins' own series.
      expect(res.text).toContain('workspace_hub_process_cpu_user_seconds_total');
      expect(res.text).toContain('workspace_hub_nodejs_heap_size_used_bytes');
      expect(res.text).toMatch(/workspace_hub_notice_streams 0/);
      expect(res.text).toContain('# TYPE workspace_hub_llm_tokens_total counter');
    });
  });

  it('reports the read cache: hits, misses, entries and bytes', async () => {
    await withTestHub({ driver: db.driver, ip: LOCAL }, async (t) => {
      const value = (text: string, name: string) =>
        Number(new RegExp(`^workspace_hub_cache_${name} (\\d+)$`, 'm').exec(text)?.[1]);
      const before = (await t.request('GET', '/metrics', { token: null })).text;
      for (let i = 0; i < 3; i++) expect((await t.request('GET', '/collections')).status).toBe(200);
      const after = (await t.request('GET', '/metrics', { token: null })).text;
      // Three list reads: the first loads the list, the other two are answered from memory.
      expect(value(after, 'hits_total') - value(before, 'hits_total')).toBeGreaterThanOrEqual(2);
      expect(value(after, 'misses_total') - value(before, 'misses_total')).toBeGreaterThanOrEqual(
        1,
      );
      expect(value(after, 'entries')).toBeGreaterThan(0);
      expect(value(after, 'bytes')).toBeGreaterThan(0);
    });
  });

  it('reports the notice streams open on this instance', async () => {
    await withTestHub({ driver: db.driver, ip: LOCAL }, async (t) => {
      const streams = async () =>
        Number(
          /^workspace_hub_notice_streams (\d+)$/m.exec(
            (await t.request('GET', '/metrics', { token: null })).text,
          )?.[1],
        );
      const until = async (want: number) => {
        for (let i = 0; i < 100 && (await streams()) !== want; i++)
          await new Promise((resolve) => setTimeout(resolve, 20));
        return streams();
      };
      expect(await streams()).toBe(0);
      const res = await t.hub.app.request('/notices/stream', {
        headers: { authorization: `Bearer ${t.adminToken}` },
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      expect(await until(1)).toBe(1);
      await reader.cancel();
      expect(await until(0)).toBe(0);
    });
  });

  it('counts requests refused by the throttle', async () => {
    await withTestHub(
      {
        driver: db.driver,
        ip: LOCAL,
        config: { redis: { maxFailures: 2 } },
        throttle: (await import('../../kernel/throttle/memory.ts')).createMemoryThrottleStore(),
      },
      async (t) => {
        for (let i = 0; i < 2; i++)
          expect(
            (await t.request('GET', '/auth/session', { token: 'hbk_wrong-token-for-metrics' }))
              .status,
          ).toBe(401);
        expect(
          (await t.request('GET', '/auth/session', { token: 'hbk_wrong-token-for-metrics' }))
            .status,
        ).toBe(429);
        const res = await t.request('GET', '/metrics', { token: null });
        expect(res.text).toMatch(/workspace_hub_throttle_blocked_requests_total 1/);
        expect(res.text).toMatch(/route="\/auth\/session",status="429"\} 1/);
      },
    );
  });

  it('needs the configured bearer token when metrics.token is set, and answers 404 when disabled', async () => {
    const token = 'metrics-secret-0123456789';
    await withTestHub({ driver: db.driver, config: { metrics: { token } } }, async (t) => {
      // From an outside address (the harness's 203.0.113.1) the token decides, as it does…
      expect((await t.request('GET', '/metrics', { token: null })).status).toBe(401);
      const wrong = await t.request('GET', '/metrics', { token: 'metrics-secret-0123456780' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toContain('metrics');
      expect((await t.request('GET', '/metrics', { token: token + 'x' })).status).toBe(401);
      expect((await t.request('GET', '/metrics', { token })).status).toBe(200);
    });
    // …from loopback: a configured token is never waived for local clients.
    await withTestHub(
      { driver: db.driver, ip: LOCAL, config: { metrics: { token } } },
      async (local) => {
        expect((await local.request('GET', '/metrics', { token: null })).status).toBe(401);
        expect((await local.request('GET', '/metrics', { token })).status).toBe(200);
      },
    );
    await withTestHub(
      { driver: db.driver, config: { metrics: { enabled: false } } },
      async (off) => {
        expect((await off.request('GET', '/metrics', { token: null })).status).toBe(404);
      },
    );
  });

  it('applies a changed metrics section on reload and reads the token from ${ENV}', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hub-metrics-'));
    const path = join(dir, 'server.yaml');
    const env = { HUB_METRICS_TOKEN: 'from-the-environment-0123' };
    try {
      await writeFile(path, stringify({ logging: { level: 'silent' } }));
      const sections = Object.fromEntries(
        plugins.filter((p) => p.config).map((p) => [p.config!.section, p.config!.schema]),
      );
      const loaded = await loadConfig({
        explicitPath: path,
        cwd: dir,
        env,
        pluginSections: sections,
      });
      const hub = await createHub({
        config: loaded.config,
        configPath: path,
        env,
        plugins,
        driver: db.driver,
        clientIp: () => LOCAL,
        migrate: true,
      });
      try {
        expect((await hub.app.request('/metrics')).status).toBe(200);
        await writeFile(
          path,
          stringify({ logging: { level: 'silent' }, metrics: { token: '${HUB_METRICS_TOKEN}' } }),
        );
        const outcome = await hub.reload();
        expect(outcome.ok).toBe(true);
        expect((await hub.app.request('/metrics')).status).toBe(401);
        expect(
          (
            await hub.app.request('/metrics', {
              headers: { authorization: `Bearer ${env.HUB_METRICS_TOKEN}` },
            })
          ).status,
        ).toBe(200);
      } finally {
        await hub.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('who may read /metrics', () => {
  const db = useTestDriver(httpDrivers()[0]!);
  /** The socket peer each request appears to come from: `x-test-peer`, else none (no socket). */
  const peerHeader = (c: Context<KernelEnv>) => c.req.header('x-test-peer');
  const scrape = (t: TestHub, peer?: string, headers: Record<string, string> = {}) =>
    t.request('GET', '/metrics', {
      token: null,
      headers: { ...headers, ...(peer === undefined ? {} : { 'x-test-peer': peer }) },
    });

  it('without a token answers loopback clients and gives others 403 naming metrics.token and metrics.public', async () => {
    await withTestHub({ driver: db.driver, clientIp: peerHeader }, async (t) => {
      for (const peer of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1']) {
        const res = await scrape(t, peer);
        expect(res.status, peer).toBe(200);
        expect(res.text).toContain('workspace_hub_http_requests_total');
      }
      const outside = [
        '203.0.113.1',
        '10.0.0.5',
        '192.168.1.20',
        '::ffff:10.0.0.1',
        'fe80::1',
        '::2',
        '127.0.0.1.example.com',
        undefined, // no socket at all: the hub cannot tell, so it is not local
      ];
      for (const peer of outside) {
        const res = await scrape(t, peer);
        expect(res.status, String(peer)).toBe(403);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(res.body.error).toContain('metrics.token');
        expect(res.body.error).toContain('metrics.public');
        expect(res.text).not.toContain('workspace_hub_');
      }
    });
  });

  it('with metrics.public: true answers every address without a token', async () => {
    await withTestHub(
      { driver: db.driver, clientIp: peerHeader, config: { metrics: { public: true } } },
      async (t) => {
        for (const peer of ['203.0.113.1', '10.0.0.5', undefined])
          expect((await scrape(t, peer)).status, String(peer)).toBe(200);
      },
    );
  });

  it('through a proxy on the same host: never local without server.trustProxy; with it, the hop the proxy appended decides', async () => {
    // The proxy connects from 127.0.0.1, so every request's socket peer is loopback.
    await withTestHub({ driver: db.driver, clientIp: () => '127.0.0.1' }, async (t) => {
      expect((await scrape(t)).status).toBe(200);
      expect((await scrape(t, undefined, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(403);
      expect((await scrape(t, undefined, { 'x-forwarded-for': '127.0.0.1' })).status).toBe(403);
      expect((await scrape(t, undefined, { forwarded: 'for=198.51.100.7' })).status).toBe(403);
    });
    await withTestHub(
      {
        driver: db.driver,
        clientIp: () => '127.0.0.1',
        config: { server: { trustProxy: true } },
      },
      async (t) => {
        // A scraper on the host that talks to the hub directly.
        expect((await scrape(t)).status).toBe(200);
        expect((await scrape(t, undefined, { 'x-forwarded-for': '198.51.100.7' })).status).toBe(
          403,
        );
        // A client may claim loopback on the left; only the right-most (appended) entry counts.
        expect(
          (await scrape(t, undefined, { 'x-forwarded-for': '127.0.0.1, 198.51.100.7' })).status,
        ).toBe(403);
        expect(
          (await scrape(t, undefined, { 'x-forwarded-for': '203.0.113.5, 127.0.0.1' })).status,
        ).toBe(200);
        // A hop the hub does not read (only `Forwarded`) leaves the peer, the proxy: not local.
        expect((await scrape(t, undefined, { forwarded: 'for=198.51.100.7' })).status).toBe(403);
      },
    );
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

  it.runIf(external !== undefined)(
    'on a real Node server, answers a scrape over loopback and refuses one over a non-loopback interface',
    async () => {
      const config = validateConfig(
        { logging: { level: 'silent' } },
        Object.fromEntries(
          plugins.filter((p) => p.config).map((p) => [p.config!.section, p.config!.schema]),
        ),
        {},
      );
      const hub = await createHub({
        config,
        plugins,
        driver: db.driver,
        clientIp: nodeClientIp,
        migrate: true,
      });
      // Every interface: the same server is reached over loopback and over the outside one.
      const running = await serveNode(hub, { host: '0.0.0.0', port: 0 });
      try {
        const { port } = running.address;
        const here = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(here.status).toBe(200);
        expect(await here.text()).toContain('workspace_hub_http_requests_total');
        const there = await fetch(`http://${external}:${port}/metrics`);
        expect(there.status).toBe(403);
        expect((await there.json()).error).toContain('metrics.token');
      } finally {
        await running.stop();
      }
    },
  );
});

describe('access log and the logger', () => {
  const db = useTestDriver(httpDrivers()[0]!);

  const createCapture = (level: 'info' | 'debug') => {
    const lines: string[] = [];
    return {
      lines,
      log: createLogger({ level, format: 'json', write: (line) => lines.push(line) }),
    };
  };

  const capture = (format: 'json' | 'pretty' = 'json') => {
    const lines: string[] = [];
    return {
      lines,
      log: createLogger({ level: 'info', format, write: (line) => lines.push(line) }),
    };
  };

  it('writes one JSON line per request with route template, status, duration, ids, and no query or token', async () => {
    const { lines, log } = capture();
    await withTestHub(
      { driver: db.driver, log, config: { logging: { level: 'info', format: 'json' } } },
      async (t) => {
        lines.length = 0;
        const res = await t.request('GET', '/run-results/raw-id-77?secret=query-value', {
          headers: { 'x-request-id': 'req-abc-1' },
        });
        expect(res.status).toBe(404);
        const entries = lines
          .map((line) => JSON.parse(line))
          .filter((entry) => entry.msg === 'request');
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({
          level: 'info',
          method: 'GET',
          route: '/run-results/:id',
          status: 404,
          requestId: 'req-abc-1',
          tenant: '__default__',
          userId: t.adminId,
        });
        expect(typeof entries[0].durationMs).toBe('number');
        const all = lines.join('\n');
        expect(all).not.toContain('query-value');
        expect(all).not.toContain('raw-id-77');
        expect(all).not.toContain(t.adminToken);
        expect(all).not.toContain(t.adminToken.slice(4, 20));
      },
    );
  });

  it('logs an unmatched path without its query, and no user for a request without a token', async () => {
    const { lines, log } = capture();
    await withTestHub(
      { driver: db.driver, log, config: { logging: { level: 'info', format: 'json' } } },
      async (t) => {
        lines.length = 0;
        await t.request('GET', '/nowhere/at-all?token=abc', { token: null });
        const [entry] = lines.map((line) => JSON.parse(line)).filter((e) => e.msg === 'request');
        expect(entry).toMatchObject({ route: '(unmatched)', path: '/nowhere/at-all', status: 404 });
        expect(entry.userId).toBeUndefined();
        expect(lines.join('\n')).not.toContain('abc');
      },
    );
  });

  /** A hub served by Node on a free port, logging to `log` at `level`. */
  async function servedHub(log: ReturnType<typeof capture>['log'], level: 'info' | 'debug') {
    const config = validateConfig(
      { logging: { level, format: 'json' }, server: { port: 1 } },
      Object.fromEntries(
        plugins.filter((p) => p.config).map((p) => [p.config!.section, p.config!.schema]),
      ),
      {},
    );
    const hub = await createHub({ config, plugins, driver: db.driver, log, migrate: true });
    return serveNode(hub, { host: '127.0.0.1', port: 0 });
  }

  /** The access line of `route`, once the server has written it. */
  async function accessLine(lines: string[], route: string): Promise<any> {
    for (let i = 0; i < 50; i++) {
      const entry = lines
        .map((line) => JSON.parse(line))
        .find((e) => e.msg === 'request' && e.route === route);
      if (entry) return entry;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return undefined;
  }

  it('on a real Node server, logs the body bytes once the response is finished', async () => {
    const { lines, log } = createCapture('info');
    const running = await servedHub(log, 'info');
    try {
      const res = await fetch(`${running.url}/openapi.json?probe=1`);
      const body = Buffer.from(await res.arrayBuffer());
      const entry = await accessLine(lines, '/openapi.json');
      expect(entry).toMatchObject({ level: 'info', method: 'GET', status: 200 });
      expect(entry.bytes).toBe(body.length);
      expect(lines.join('\n')).not.toContain('probe=1');
    } finally {
      await running.stop();
    }
  });

  it('on a real Node server, logs the probes at debug with their body bytes, and not at info', async () => {
    const quiet = createCapture('info');
    const atInfo = await servedHub(quiet.log, 'info');
    try {
      for (const path of ['/health', '/healthz', '/readyz'])
        await (await fetch(`${atInfo.url}${path}`)).text();
      await (await fetch(`${atInfo.url}/nowhere`)).text();
      expect(await accessLine(quiet.lines, '(unmatched)')).toMatchObject({ status: 404 });
      expect(
        quiet.lines.filter((line) => /"route":"\/(health|healthz|readyz)"/.test(line)),
      ).toEqual([]);
    } finally {
      await atInfo.stop();
    }
    const verbose = createCapture('debug');
    const atDebug = await servedHub(verbose.log, 'debug');
    try {
      const body = await (await fetch(`${atDebug.url}/health`)).text();
      const entry = await accessLine(verbose.lines, '/health');
      expect(entry).toMatchObject({ level: 'debug', status: 200 });
      expect(entry.bytes).toBe(Buffer.byteLength(body));
    } finally {
      await atDebug.stop();
    }
  });

  /** A log line must never carry these raw: C0, DEL, C1, U+2028/2029 and the bidi controls. */
  const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
  // A newline followed by a line of the attacker's choosing, then an ESC sequence (clear screen),
  // a one-byte CSI, DEL, a carriage return, a line separator, a right-to-left override and an isolate.
  const forgedLine =
    '2026-01-01T00:00:00.000Z INFO  request method=GET route=/admin/users status=200';
  const attack = `/x%0a${forgedLine.replaceAll(' ', '%20')}%1b%5B2J%c2%9b%7f%0d%e2%80%a8%e2%80%ae%e2%81%a6`;
  const decoded = `/x\n${forgedLine}\x1b[2J\u009b\u007f\r\u2028\u202e\u2066`;

  it.each(['pretty', 'json'] as const)(
    'in %s format, writes a request for a path with a newline and terminal controls as one escaped line',
    async (format) => {
      const { lines, log } = capture(format);
      await withTestHub(
        { driver: db.driver, log, config: { logging: { level: 'info', format } } },
        async (t) => {
          lines.length = 0;
          expect((await t.request('GET', attack, { token: null })).status).toBe(404);
          expect(lines).toHaveLength(1);
          const [line] = lines as [string];
          expect(line).not.toMatch(RAW_CONTROL);
          if (format === 'json') {
            expect(JSON.parse(line)).toMatchObject({ msg: 'request', path: decoded, status: 404 });
            expect(line).toContain('\\u009b\\u007f\\r\\u2028\\u202e\\u2066');
          } else {
            expect(line).toContain(
              `path=/x\\n${forgedLine}\\x1b[2J\\x9b\\x7f\\r\\u2028\\u202e\\u2066 status=404`,
            );
          }
        },
      );
    },
  );

  it.each(['pretty', 'json'] as const)(
    'in %s format, escapes the message, keys, bound fields, nested values and error stacks',
    (format) => {
      const { lines, log } = capture(format);
      const error = new Error('boom\nFAKE ERROR line\u001b[31m');
      log.child({ 'bound\nkey': 'a\u202eb' }).warn('message\nFAKE\u2029line', {
        'k\u2028ey': 'v\u001bv',
        nested: { deep: 'y\u0085z\u2067' },
        error,
      });
      expect(lines).toHaveLength(1);
      const [line] = lines as [string];
      expect(line).not.toMatch(RAW_CONTROL);
      if (format === 'json') {
        const record = JSON.parse(line);
        expect(record).toMatchObject({
          msg: 'message\nFAKE\u2029line',
          'bound\nkey': 'a\u202eb',
          'k\u2028ey': 'v\u001bv',
          nested: { deep: 'y\u0085z\u2067' },
          error: { message: error.message, stack: error.stack },
        });
      } else {
        expect(line).toContain('message\\nFAKE\\u2029line');
        expect(line).toContain('bound\\nkey=a\\u202eb');
        expect(line).toContain('k\\u2028ey=v\\x1bv');
        expect(line).toContain('nested={"deep":"y\\x85z\\u2067"}');
        // The stack stays on this line, its own line breaks written as \n.
        expect(line).toContain('error=Error: boom\\nFAKE ERROR line\\x1b[31m\\n    at ');
      }
    },
  );

  it.each(['pretty', 'json'] as const)(
    'masks every kind of hub secret a message or field carries (%s)',
    (format) => {
      const lines: string[] = [];
      const log = createLogger({ level: 'info', format, write: (line) => lines.push(line) });
      const secrets = {
        token: `hbk_${'a'.repeat(43)}`,
        invitation: `hbi_${'b'.repeat(43)}`,
        link: `hbl_${'c'.repeat(43)}`,
      };
      log.info(`GET /login?link=${secrets.link}`, {
        ...secrets,
        url: `/join#code=${secrets.invitation}`,
      });
      expect(lines).toHaveLength(1);
      for (const secret of Object.values(secrets)) expect(lines[0]).not.toContain(secret);
      expect(lines[0]).toContain('/login?link=hbl_…redacted');
    },
  );

  it('writes nothing per request with logging.accessLog: false', async () => {
    const { lines, log } = capture();
    await withTestHub(
      { driver: db.driver, log, config: { logging: { level: 'info', accessLog: false } } },
      async (t) => {
        lines.length = 0;
        await t.request('GET', '/auth/session');
        await t.request('GET', '/health', { token: null });
        expect(lines.filter((line) => line.includes('"msg":"request"'))).toEqual([]);
      },
    );
  });
});
