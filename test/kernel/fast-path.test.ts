/**
 * The pieces of a request's fixed cost that were made cheaper (issue 37), each checked to keep
 * what it did before: a refusal's error, a token's hash, the edge's request id, fixed answers,
 * access line and metrics.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HttpError, notFound, unauthorized } from '../../kernel/errors.ts';
import { fixedAnswers } from '../../kernel/http/edge.ts';
import { newRequestId } from '../../kernel/http/request-id.ts';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import { createLogger } from '../../kernel/log.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useTestDriver, withTestHub, type TestHub } from '../helpers/hub.ts';
import { rawRequest } from '../helpers/net.ts';
import { servedHub } from '../helpers/served.ts';

describe('HttpError', () => {
  it('carries no stack frames for a 4xx refusal, only its name and message', () => {
    const error = unauthorized();
    expect(error).toBeInstanceOf(Error);
    expect(error.stack).toBe('HttpError: Unauthorized');
    expect(notFound().stack).toBe('HttpError: Not Found');
  });

  it('keeps its stack for a 5xx, and leaves the runtime stack limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const error = new HttpError(500, 'boom');
    expect(error.stack).toMatch(/^HttpError: boom\n\s+at /);
    expect(new HttpError(404, 'gone').stack).toBe('HttpError: gone');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('plain').stack).toMatch(/\n\s+at /);
  });
});

describe('sha256Hex', () => {
  it('is the lower-case hex sha256 of the UTF-8 text', () => {
    for (const text of ['', 'hbk_abc', 'tête-à-tête ✓'])
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('request ids the hub makes', () => {
  it('are a process prefix and a counter: each new, never a UUID drawn per request', () => {
    const ids = Array.from({ length: 1000 }, () => newRequestId());
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
    expect(new Set(ids.map((id) => id.split('-')[0])).size).toBe(1);
  });
});

describe('the edge', () => {
  const db = useTestDriver(httpDrivers()[0]!);
  const capture = () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) });
    const entries = () =>
      lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
    return { log, entries };
  };

  it('answers GET /health with its fixed JSON, a request id, one access line and one count', async () => {
    const { log, entries } = capture();
    await withTestHub(
      { driver: db.driver, log, config: { logging: { level: 'debug', format: 'json' } } },
      async (t) => {
        expect(fixedAnswers(t.hub.app.routes).has('/health')).toBe(true);
        const [a, b] = [
          await t.request('GET', '/health', { token: null }),
          await t.request('GET', '/health', { token: null }),
        ];
        expect(a.status).toBe(200);
        expect(a.text).toBe(JSON.stringify({ status: 'ok', version: a.body.version }));
        expect(a.headers.get('content-type')).toBe('application/json');
        const ids = [a.headers.get('x-request-id'), b.headers.get('x-request-id')];
        expect(ids[0]).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
        expect(ids[1]).not.toBe(ids[0]);
        const health = entries().filter((e) => e.route === '/health');
        expect(health).toHaveLength(2);
        expect(health[0]).toMatchObject({ level: 'debug', method: 'GET', status: 200 });
        expect(health.map((e) => e.requestId)).toEqual(ids);
        const metrics = { text: await t.hub.metrics.render() };
        expect(metrics.text).toContain(
          'workspace_hub_http_requests_total{method="GET",route="/health",status="200"} 2',
        );
        expect(metrics.text).toMatch(
          /workspace_hub_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} 2/,
        );
      },
    );
  });

  it('keeps a request id the client sent when it is a plain token, and replaces any other', async () => {
    await withTestHub({ driver: db.driver }, async (t) => {
      for (const path of ['/health', '/auth/session']) {
        const kept = await t.request('GET', path, { headers: { 'x-request-id': 'abc-1_=' } });
        expect(kept.headers.get('x-request-id')).toBe('abc-1_=');
        const replaced = await t.request('GET', path, { headers: { 'x-request-id': 'a b' } });
        expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}-/);
      }
    });
  });

  it('answers HEAD /health through its route, and an over-long /health URL with 414', async () => {
    await withTestHub({ driver: db.driver }, async (t) => {
      const head = await t.hub.app.request('/health', { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      const long = await t.request('GET', `/health?q=${'x'.repeat(9000)}`, { token: null });
      expect(long.status).toBe(414);
      expect(long.body.code).toBe('url_too_long');
      expect(long.headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}-/);
    });
  });
});

describe('fixed answers written by the Node server itself', () => {
  const db = useTestDriver(httpDrivers()[0]!);

  /** One request over a real socket, with exactly these headers; GET /health unless told. */
  const send = (
    port: number,
    options: { method?: string; path?: string; headers?: Record<string, string> },
  ) => rawRequest(port, { path: '/health', ...options });

  /** A hub on the suite's database served on a free port (test/helpers/served.ts). */
  const served = (run: Parameters<typeof servedHub>[1]) => servedHub({ driver: db.driver }, run);

  it('answers GET /health without the app: same body and headers, request ids, access lines and counts', async () => {
    let ids: unknown[] = [];
    let viaApp: Awaited<ReturnType<TestHub['request']>> | undefined;
    const entries = await served(async (port, t, throughApp) => {
      viaApp = await t.request('GET', '/health', { token: null });
      const before = throughApp();
      const a = await send(port, {});
      const b = await send(port, { path: '/health?probe=1', headers: { 'x-request-id': 'lb-7' } });
      expect(throughApp()).toBe(before);
      for (const answer of [a, b]) {
        expect(answer.status).toBe(200);
        expect(answer.body).toBe(viaApp.text);
        expect(answer.headers['content-type']).toBe('application/json');
        expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(viaApp.text)));
      }
      ids = [a.headers['x-request-id'], b.headers['x-request-id']];
      expect(ids[0]).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
      expect(ids[1]).toBe('lb-7');
      const metrics = await t.hub.metrics.render();
      expect(metrics).toContain(
        'workspace_hub_http_requests_total{method="GET",route="/health",status="200"} 3',
      );
      expect(metrics).toMatch(
        /workspace_hub_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} 3/,
      );
    });
    const health = entries.filter((e) => e.msg === 'request' && e.route === '/health');
    expect(health).toHaveLength(3);
    expect(health.slice(1).map((e) => e.requestId)).toEqual(ids);
    for (const entry of health.slice(1)) {
      expect(entry).toMatchObject({
        level: 'debug',
        method: 'GET',
        status: 200,
        bytes: Buffer.byteLength(viaApp!.text),
      });
      expect(typeof entry.durationMs).toBe('number');
    }
    expect(JSON.stringify(health)).not.toContain('probe=1');
  });

  it('leaves to the app a HEAD, a request naming a tenant, an unusual Host, a long URL and other paths', async () => {
    await served(async (port, _t, throughApp) => {
      const cases: [Parameters<typeof send>[1], number][] = [
        [{ method: 'HEAD' }, 200],
        [{ headers: { 'x-hub-tenant': 'nobody-here' } }, 400],
        [{ headers: { host: 'LOCALHOST' } }, 200],
        [{ path: `/health?q=${'x'.repeat(9000)}` }, 414],
        [{ path: '/health/' }, 404],
        [{ path: `http://127.0.0.1:${port}/health` }, 200],
      ];
      for (const [options, status] of cases) {
        const before = throughApp();
        const answer = await send(port, options);
        expect([options, answer.status]).toEqual([options, status]);
        expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{16}-/);
        expect(throughApp()).toBe(before + 1);
      }
    });
  });

  it('warns once about a proxy the hub does not read, as the app does', async () => {
    const entries = await served(async (port) => {
      for (let i = 0; i < 3; i++)
        expect((await send(port, { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(
          200,
        );
    });
    const warnings = entries.filter((e) => e.level === 'warn' && /trustProxy is off/.test(e.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].peer).toBe('127.0.0.1');
    expect(JSON.stringify(entries)).not.toContain('198.51.100.7');
  });
});
