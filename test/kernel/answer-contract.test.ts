/**
 * The test harness checks every answer against the hub's own `/openapi.json` (test/helpers/
 * contract.ts): here a plugin whose answers drift from its docs shows that a drift fails the
 * request that received it, naming the route, the status and what does not match.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpError } from '../../kernel/errors.ts';
import { createPluginApp, definePlugin } from '../../kernel/plugin.ts';
import { accountsPlugin } from '../../plugins/accounts/index.ts';
import { avatarsPlugin } from '../../plugins/avatars/index.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';

const driftPlugin = definePlugin({
  name: 'drift',
  api: {
    'GET /drift/typed': {
      summary: 'Documented as a string field',
      responses: { 200: z.object({ value: z.string() }) },
    },
    'GET /drift/teapot': { summary: 'Documents no 418', responses: { 200: z.object({}) } },
    'GET /drift/gone': { summary: 'Documents its 410', errors: [410], responses: { 200: null } },
  },
  setup: () => ({
    routes: createPluginApp()
      .get('/drift/typed', (c) => c.json({ value: Number(c.req.query('n') ?? 1) }))
      .get('/drift/teapot', (c) => c.json({ error: "I'm a teapot", code: 'not_found' }, 418))
      .get('/drift/gone', (c) => {
        if (c.req.query('bare')) return c.json({ message: 'gone' }, 410);
        throw new HttpError(410, 'Gone for good');
      }),
  }),
});

describe('answers checked against /openapi.json', () => {
  const t = useTestHub(EMBEDDED_DRIVER, { plugins: [avatarsPlugin, accountsPlugin, driftPlugin] });

  it('fails a request whose JSON body does not match the documented schema, naming route, status and field, unless it opts out', async () => {
    await expect(t.request('GET', '/drift/typed')).rejects.toThrow(
      /GET \/drift\/typed answered 200: the body does not match the documented schema of GET \/drift\/typed: body\/value must be string/,
    );
    const unchecked = await t.request('GET', '/drift/typed', { contract: false });
    expect([unchecked.status, unchecked.body]).toEqual([200, { value: 1 }]);
  });

  it('fails a request answered with a status the route does not document', async () => {
    await expect(t.request('GET', '/drift/teapot')).rejects.toThrow(
      /answered 418: status 418 is not documented for GET \/drift\/teapot/,
    );
  });

  it('checks error answers against the Error schema: a documented status with a body of another shape fails', async () => {
    const documented = await t.request('GET', '/drift/gone');
    expect(documented.status).toBe(410);
    expect(documented.body).toEqual({ error: 'Gone for good', code: 'gone' });
    await expect(t.request('GET', '/drift/gone?bare=1')).rejects.toThrow(
      /answered 410: the body does not match the documented schema of GET \/drift\/gone: body must have required property 'error'/,
    );
  });

  it('accepts the 304 a cached list gives to a matching If-None-Match, as documented', async () => {
    const first = await t.request('GET', '/admin/users');
    const etag = first.headers.get('etag')!;
    const again = await t.request('GET', '/admin/users', { headers: { 'if-none-match': etag } });
    expect([again.status, again.text]).toEqual([304, '']);
  });

  it('checks the 404 of a path no route has, and the 405 of a method a path does not have', async () => {
    const missing = await t.request('GET', '/drift/nowhere/at/all');
    expect([missing.status, missing.body]).toEqual([
      404,
      { error: 'Not Found', code: 'not_found' },
    ]);
    const wrong = await t.request('DELETE', '/drift/typed');
    expect([wrong.status, wrong.body.code]).toEqual([405, 'method_not_allowed']);
  });
});
