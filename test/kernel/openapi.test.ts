/**
 * The OpenAPI document: valid OpenAPI 3.1, listing every route the hub mounts (read from the hub's
 * own route table, so a route added later without docs fails here), and derived from the zod
 * schemas that validate requests rather than written separately.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { compileErrors, validate as validateOpenApi } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES } from '../../kernel/errors.ts';
import { kernelRouteDocs } from '../../kernel/http/api-docs.ts';
import { buildOpenApiDocument, describeMiddleware } from '../../kernel/http/openapi.ts';
import { createPluginApp, definePlugin } from '../../kernel/plugin.ts';
import { validate } from '../../kernel/http/validate.ts';
import { plugins } from '../../plugins/index.ts';
import { httpDrivers } from '../helpers/drivers.ts';
import { useTestHub } from '../helpers/hub.ts';

/** Every endpoint in a Hono route table as `METHOD /path` (middleware is method ALL). */
function mountedRoutes(routes: readonly { method: string; path: string }[]): string[] {
  return [...new Set(routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`))];
}

/** `/collections/:id` → `/collections/{id}` (a `{regex}` after a parameter is dropped). */
const template = (path: string) => path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');

describe('GET /openapi.json', () => {
  const t = useTestHub(httpDrivers()[0]!);
  let doc: any;

  beforeAll(async () => {
    const response = await t.request('GET', '/openapi.json', { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    doc = response.body;
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await validateOpenApi(structuredClone(doc));
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('lists every mounted method and path, each with a written summary', () => {
    const mounted = mountedRoutes(t.hub.app.routes);
    // The route table is the hub's real one: the kernel's, public and protected plugin routes.
    expect(mounted).toEqual(
      expect.arrayContaining([
        'GET /health',
        'POST /admin/config/reload',
        'GET /collections',
        'GET /notices/stream',
        'GET /docs',
      ]),
    );
    const missing = mounted.filter((route) => {
      const [method, path] = route.split(' ') as [string, string];
      return !doc.paths[template(path)]?.[method.toLowerCase()];
    });
    expect(missing).toEqual([]);
    const undocumented = mounted.filter((route) => {
      const [method, path] = route.split(' ') as [string, string];
      return doc.paths[template(path)][method.toLowerCase()].summary.endsWith('(undocumented)');
    });
    expect(undocumented).toEqual([]);
    const operations = Object.values(doc.paths).reduce(
      (n: number, item: any) => n + Object.keys(item).length,
      0,
    );
    expect(operations).toBe(mounted.length);
  });

  it('has no docs for routes that are not mounted', () => {
    const mounted = new Set(mountedRoutes(t.hub.app.routes));
    const documented = [
      ...Object.keys(kernelRouteDocs),
      ...plugins.flatMap((p) => Object.keys(p.api ?? {})),
    ];
    expect(documented.filter((key) => !mounted.has(key))).toEqual([]);
  });

  it('groups the operations by what a reader looks for, each group with a sentence, in that order', () => {
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toEqual([
      'Session',
      'Workspace',
      'Discussions',
      'Notices',
      'LLM',
      'Admin',
      'Console',
      'Operations',
    ]);
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/^[A-Z].{30,}\.$/);
    const groupOf = (method: string, path: string) => doc.paths[path][method].tags;
    expect(groupOf('get', '/health')).toEqual(['Operations']);
    expect(groupOf('get', '/readyz')).toEqual(['Operations']);
    expect(groupOf('post', '/admin/config/reload')).toEqual(['Operations']);
    expect(groupOf('get', '/auth/session')).toEqual(['Session']);
    expect(groupOf('get', '/join')).toEqual(['Session']);
    expect(groupOf('get', '/collections')).toEqual(['Workspace']);
    expect(groupOf('get', '/collections/{id}/discussions')).toEqual(['Discussions']);
    expect(groupOf('get', '/notices/stream')).toEqual(['Notices']);
    expect(groupOf('post', '/llm/chat/stream')).toEqual(['LLM']);
    for (const [path, item] of Object.entries<Record<string, { tags: string[] }>>(doc.paths))
      for (const [method, operation] of Object.entries(item))
        if (path.startsWith('/admin/') && path !== '/admin/config/reload')
          expect(operation.tags, `${method} ${path}`).toEqual(['Admin']);
  });

  it('marks public routes as needing no token and the rest as needing the bearer token', () => {
    expect(doc.components.securitySchemes.bearer).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    for (const [path, method] of [
      ['/', 'get'],
      ['/health', 'get'],
      ['/join', 'get'],
      ['/auth/invitations/redeem', 'post'],
      ['/openapi.json', 'get'],
      ['/docs', 'get'],
    ]) {
      expect(doc.paths[path][method].security, `${method} ${path}`).toEqual([]);
      expect(doc.paths[path][method].responses['401'], `${method} ${path}`).toBeUndefined();
    }
    for (const [path, method] of [
      ['/auth/session', 'get'],
      ['/collections/{id}', 'put'],
      ['/admin/users', 'post'],
    ]) {
      expect(doc.paths[path][method].security, `${method} ${path}`).toEqual([{ bearer: [] }]);
      expect(Object.keys(doc.paths[path][method].responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(['401', '429', '503']),
      );
    }
    // Only /admin/* carries the admin check's 403 from the pipeline.
    expect(doc.paths['/admin/users'].get.responses['403']).toBeDefined();
    expect(doc.paths['/auth/session'].get.responses['403']).toBeUndefined();
  });

  it('describes every error as {"error": string, "code": <one of the codes>} and offers the tenant header on every operation', () => {
    expect(doc.components.schemas.Error).toEqual(
      expect.objectContaining({
        required: ['error', 'code'],
        properties: {
          error: expect.objectContaining({ type: 'string' }),
          code: expect.objectContaining({ type: 'string', enum: [...ERROR_CODES] }),
          current: expect.objectContaining({ type: 'object' }),
          reason: expect.objectContaining({
            type: 'string',
            enum: ['redeemed', 'expired', 'revoked'],
          }),
        },
      }),
    );
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        expect(operation.parameters, `${method} ${path}`).toContainEqual({
          $ref: '#/components/parameters/Tenant',
        });
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          // An error is the Error body; a browser route that answers refusals as HTML pages
          // (single sign-on) documents the page, beside the pipeline's Error body where it has one.
          if (Number(status) < 400) continue;
          const where = `${method} ${path} ${status}`;
          if (response.$ref) expect(response.$ref, where).toBe(`#/components/responses/E${status}`);
          else {
            expect(Object.keys(response.content), where).toContain('text/html');
            const json = response.content['application/json'];
            if (json) expect(json.schema.$ref, where).toBe('#/components/schemas/Error');
          }
        }
      }
    }
    expect(doc.components.parameters.Tenant).toEqual(
      expect.objectContaining({ name: 'X-Hub-Tenant', in: 'header', required: false }),
    );
    // Bodies can be too large or not JSON on every write.
    expect(Object.keys(doc.paths['/collections'].post.responses)).toEqual(
      expect.arrayContaining(['400', '413', '415']),
    );
  });

  it("lists the pipeline's statuses where its middleware runs: body checks on writes only, none of the tenant's before it", () => {
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path][method].responses);
    // Probes answer before the tenant lookup and body checks; only the URL limit is ahead of them
    // (and any route can fail unexpectedly: 500).
    expect(statuses('/healthz', 'get')).toEqual(['200', '414', '500']);
    // Reads pass the tenant lookup (400/404/503) but no body check (413/415) or write race (409).
    expect(statuses('/collections', 'get')).toEqual(expect.arrayContaining(['400', '404', '414']));
    for (const status of ['409', '413', '415'])
      expect(statuses('/collections', 'get')).not.toContain(status);
    expect(statuses('/collections', 'post')).toEqual(
      expect.arrayContaining(['400', '404', '409', '413', '414', '415', '503']),
    );
  });

  it('takes request bodies and query parameters from the validating zod schemas', () => {
    const createUser =
      doc.paths['/admin/users'].post.requestBody.content['application/json'].schema;
    expect(createUser.required).toEqual(['name']);
    expect(createUser.properties.role).toEqual(
      expect.objectContaining({ enum: ['user', 'admin'], default: 'user' }),
    );
    expect(createUser.properties.llmMonthlyTokenLimit).toBeDefined();
    // jsonBody's NUL/depth guard is not what is described: the entity's own schema is.
    const createCollection =
      doc.paths['/collections'].post.requestBody.content['application/json'].schema;
    expect(createCollection.properties.name).toEqual(expect.objectContaining({ type: 'string' }));
    const feed = doc.paths['/notices'].get.parameters
      .filter((p: any) => p.in === 'query')
      .map((p: any) => p.name);
    expect(feed.length).toBeGreaterThan(0);
    expect(doc.paths['/collections/{id}'].put.parameters).toContainEqual(
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
    );
  });

  it('documents response bodies with the schemas plugins declare', () => {
    const session =
      doc.paths['/auth/session'].get.responses['200'].content['application/json'].schema;
    expect(session.properties).toEqual(
      expect.objectContaining({
        user: expect.anything(),
        token: expect.anything(),
        capabilities: expect.anything(),
      }),
    );
    expect(doc.paths['/admin/users'].post.responses['201']).toBeDefined();
    expect(doc.paths['/collections/{id}'].delete.responses['204']).toEqual({
      description: 'No content',
    });
  });
});

describe('GET /docs', () => {
  const t = useTestHub(httpDrivers()[0]!);

  it('serves the page without a token, under a CSP that names no other origin', async () => {
    const page = await t.request('GET', '/docs', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/https?:|\*/);
    // Every script the page loads is the hub's own; the inline one carries the nonce.
    const nonce = csp.match(/'nonce-([^']+)'/)![1];
    const scripts = [...page.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts).toEqual([' src="/docs/redoc.standalone.js"', ` nonce="${nonce}"`]);
    expect(page.text).toContain("Redoc.init('/openapi.json'");
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    // A fresh nonce per response.
    const again = await t.request('GET', '/docs', { token: null });
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('serves the installed Redoc bundle from the hub, with its one vendor-hosted image removed', async () => {
    const bundle = await t.request('GET', '/docs/redoc.standalone.js', { token: null });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    const installed = readFileSync(
      createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'),
      'utf8',
    );
    expect(installed).toContain('https://cdn.redoc.ly/redoc/logo-mini.svg');
    expect(bundle.text).not.toContain('cdn.redoc.ly/redoc/logo-mini.svg');
    expect(bundle.text.length).toBe(
      installed.length - 'https://cdn.redoc.ly/redoc/logo-mini.svg'.length + 'data:,'.length,
    );
  });
});

describe('buildOpenApiDocument', () => {
  it('follows a schema change on a route without any other edit', () => {
    const body = z.object({
      colour: z.enum(['red', 'blue']),
      size: z.number().int().min(1).optional(),
    });
    const app = createPluginApp().post('/paint/:id', validate('json', body), (c) =>
      c.json({ ok: true }),
    );
    const doc = buildOpenApiDocument(app, [], { title: 't', version: '1' });
    const operation = doc.paths['/paint/{id}'].post;
    expect(operation.requestBody.content['application/json'].schema).toEqual(
      expect.objectContaining({
        required: ['colour'],
        properties: {
          colour: { type: 'string', enum: ['red', 'blue'] },
          size: expect.objectContaining({ type: 'integer', minimum: 1 }),
        },
      }),
    );
    // Undocumented routes are still listed, and say so.
    expect(operation.summary).toBe('POST /paint/:id (undocumented)');
    // Mounted before any authenticating middleware: public.
    expect(operation.security).toEqual([]);
  });

  it('gives recursive schemas a named component so their references resolve', async () => {
    type Node = { name: string; children?: Node[] };
    const node: z.ZodType<Node> = z.lazy(() =>
      z.object({ name: z.string(), children: z.array(node).optional() }),
    );
    const app = createPluginApp().post('/tree', validate('json', node), (c) => c.json({}));
    const doc = buildOpenApiDocument(app, [], { title: 't', version: '1' });
    const result = await validateOpenApi(structuredClone(doc) as any);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(JSON.stringify(doc.paths)).toContain('#/components/schemas/');
  });

  it('applies a described middleware to the routes registered after it that match its path', async () => {
    const app = createPluginApp();
    app.get('/open', (c) => c.json({}));
    app.use(
      '*',
      describeMiddleware(async (_c, next) => next(), { authenticates: true, errors: [401] }),
    );
    app.get('/mine', (c) => c.json({}));
    app.use(
      '/staff/*',
      describeMiddleware(async (_c, next) => next(), { errors: [403], note: 'Staff only.' }),
    );
    app.get('/staff/list', (c) => c.json({}));
    app.get('/other', (c) => c.json({}));
    const doc = buildOpenApiDocument(
      app,
      [{ tag: 'x', routes: { 'GET /other': { summary: 'Other', errors: [422] } } }],
      { title: 't', version: '1' },
    );
    expect(doc.paths['/open'].get.security).toEqual([]);
    expect(doc.paths['/mine'].get.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.paths['/mine'].get.responses)).toContain('401');
    expect(Object.keys(doc.paths['/mine'].get.responses)).not.toContain('403');
    expect(doc.paths['/staff/list'].get.description).toBe('Staff only.');
    expect(Object.keys(doc.paths['/staff/list'].get.responses)).toEqual(
      expect.arrayContaining(['401', '403']),
    );
    // A status without a stock description still gets a response component, so the ref resolves.
    expect(doc.components.responses.E422.description).toBe('Error 422');
    const result = await validateOpenApi(structuredClone(doc) as any);
    if (!result.valid) throw new Error(compileErrors(result));
  });

  it('ignores plugins that are not mounted', () => {
    const unused = definePlugin({
      name: 'unused',
      api: { 'GET /nowhere': { summary: 'x' } },
      setup: () => ({}),
    });
    const app = createPluginApp();
    const doc = buildOpenApiDocument(app, [{ tag: unused.name, routes: unused.api! }], {
      title: 't',
      version: '1',
    });
    expect(doc.paths).toEqual({});
  });
});
