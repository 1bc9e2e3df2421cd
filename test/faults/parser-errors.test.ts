/**
 * Requests Node's HTTP parser refuses, sent on raw sockets to a real `workspace-hub start` process:
 * every answer is an HTTP/1.1 response with the right status and a JSON `{ "error", "code" }` body,
 * and the connection ends without a reset — also for a body over the limit sent with
 * `Connection: close`.
 * On Deno only the limits the hub checks itself (URL, body) are covered: Deno's parser answers the
 * rest with its own empty 400, and offers no hook to change that.
 */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DENO, quietLogging, useCliProject, useServer } from '../helpers/cli.ts';
import { parseAnswer, rawExchange, type RawOptions } from './raw-http.ts';

const BODY_LIMIT = 64 * 1024;

const denoFound = existsSync(DENO);
if (process.env.CI === 'true' && !denoFound)
  throw new Error(`CI=true but the Deno binary is missing at ${DENO}`);

const PARSER_CODES: Record<number, string> = {
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'url_too_long',
  431: 'headers_too_large',
};

/** Sends the request and expects a clean JSON error answer with `status`; returns the message. */
async function expectJsonError(
  port: number,
  head: string | Buffer,
  status: number,
  options?: RawOptions,
): Promise<string> {
  const answer = await rawExchange(port, head, options);
  expect(
    answer.error,
    `connection error, got ${JSON.stringify(answer.bytes.toString('latin1').slice(0, 300))}`,
  ).toBeUndefined();
  const parsed = parseAnswer(answer.bytes);
  expect(parsed.status, parsed.body).toBe(status);
  expect(parsed.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(parsed.body);
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  // The code beside the message: what the parser could not read, or the limit that was passed.
  expect(body.code).toBe(status === 400 ? 'malformed_request' : PARSER_CODES[status]);
  return body.error as string;
}

/** Bodies over the limit with `Connection: close`, five at a time; returns what went wrong. */
async function oversizedBodies(port: number, times: number): Promise<string[]> {
  const head = `POST /collections HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT * 8}\r\nConnection: close\r\n\r\n`;
  const problems: string[] = [];
  for (let round = 0; round < times / 5; round++) {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        rawExchange(port, head, { body: { size: BODY_LIMIT * 8, chunk: 16 * 1024 } }),
      ),
    );
    for (const answer of answers) {
      if (answer.error) problems.push(answer.error);
      else {
        const parsed = parseAnswer(answer.bytes);
        if (parsed.status !== 413 || !/too large/.test(JSON.parse(parsed.body).error))
          problems.push(`${parsed.status} ${parsed.body}`);
      }
    }
  }
  return problems;
}

describe('HTTP parser errors on a running hub (embedded database)', () => {
  const project = useCliProject(null, { server: { bodyLimitBytes: BODY_LIMIT }, ...quietLogging });
  const server = useServer(project, ['--port', '0']);
  let port: number;
  beforeAll(() => {
    port = Number(new URL(server.url).port);
  });

  it('answers a malformed Transfer-Encoding with a JSON 400', async () => {
    const error = await expectJsonError(
      port,
      'POST /collections HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked, gzip\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
      400,
    );
    expect(error).toMatch(/transfer-encoding/i);
  });

  it('answers both Content-Length and Transfer-Encoding with a JSON 400', async () => {
    await expectJsonError(
      port,
      'POST /collections HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    );
  });

  it('answers a non-ASCII byte in the path with a JSON 400', async () => {
    await expectJsonError(
      port,
      Buffer.concat([
        Buffer.from('GET /collections/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'),
      ]),
      400,
    );
  });

  it('answers a control character in the path with a JSON 400', async () => {
    await expectJsonError(port, 'GET /coll\x01ections HTTP/1.1\r\nHost: x\r\n\r\n', 400);
  });

  it('answers a request without a Host header with a JSON 400', async () => {
    const error = await expectJsonError(port, 'GET /health HTTP/1.1\r\n\r\n', 400);
    expect(error).toMatch(/host/i);
  });

  it('answers a Host header that is no host name with a JSON 400', async () => {
    const error = await expectJsonError(
      port,
      'GET /health HTTP/1.1\r\nHost: exa mple\r\nConnection: close\r\n\r\n',
      400,
    );
    expect(error).toMatch(/URL|host/i);
  });

  for (const size of [9 * 1024, 20 * 1024, 100 * 1024]) {
    it(`answers a ${size / 1024} KB URL with a JSON 414`, async () => {
      const error = await expectJsonError(
        port,
        `GET /health?q=${'a'.repeat(size)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        414,
      );
      expect(error).toMatch(/URL|URI/);
    });
  }

  for (const size of [20 * 1024, 100 * 1024]) {
    it(`answers a ${size / 1024} KB header with a JSON 431`, async () => {
      await expectJsonError(
        port,
        `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(size)}\r\n\r\n`,
        431,
      );
    });
  }

  it('still answers a URL just under the limit normally', async () => {
    const answer = await rawExchange(
      port,
      `GET /health?q=${'a'.repeat(7 * 1024)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(answer.error).toBeUndefined();
    expect(parseAnswer(answer.bytes).status).toBe(200);
  });

  it('answers a body over the limit sent with Connection: close with a JSON 413 every time (50 tries)', async () => {
    expect(await oversizedBodies(port, 50)).toEqual([]);
  });

  it('answers a chunked body over the limit sent with Connection: close with a JSON 413', async () => {
    const size = BODY_LIMIT * 4;
    const head = `POST /collections HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${size.toString(16)}\r\n`;
    await expectJsonError(port, head, 413, { body: { size } });
  });
});

describe.skipIf(!denoFound)('limits the hub itself checks, on Deno (embedded database)', () => {
  const project = useCliProject(null, { server: { bodyLimitBytes: BODY_LIMIT }, ...quietLogging });
  const server = useServer(project, ['--port', '0'], { runtime: 'deno' });
  let port: number;
  beforeAll(() => {
    port = Number(new URL(server.url).port);
  });

  // Longer heads are refused by Deno's own parser (an empty 400) before the hub sees them.
  for (const size of [9 * 1024, 20 * 1024]) {
    it(`answers a ${size / 1024} KB URL with a JSON 414`, async () => {
      await expectJsonError(
        port,
        `GET /health?q=${'a'.repeat(size)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        414,
      );
    });
  }

  it('answers a body over the limit sent with Connection: close with a JSON 413 every time (50 tries)', async () => {
    expect(await oversizedBodies(port, 50)).toEqual([]);
  });
});
