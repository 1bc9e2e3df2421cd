/**
 * `GET /openapi.json` and `GET /docs` (both public). The document is built from the mounted route
 * table on the first request and kept (routes never change after start-up). The reference page is
 * Redoc's standalone bundle, served by the hub itself from the installed `redoc` package, so the
 * page works with no internet access; its CSP allows nothing from any other origin.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { z } from 'zod';
import { RELOAD_SECTIONS } from '../config/reload.ts';
import type { KernelEnv } from '../plugin.ts';
import type { RouteDocs } from './openapi.ts';

const BUNDLE_PATH = '/docs/redoc.standalone.js';

function newNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/** Reads the bundle from the installed package once; concurrent first requests share the read. */
function bundleLoader(): () => Promise<Uint8Array> {
  let loading: Promise<Uint8Array> | undefined;
  return () => {
    loading ??= readFile(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js')).then((buffer) => new Uint8Array(buffer));
    // A failed read (package missing) is retried on the next request rather than cached.
    loading.catch(() => (loading = undefined));
    return loading;
  };
}

function docsPage(nonce: string, title: string): string {
  const escaped = title.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escaped} — API reference</title>
<style nonce="${nonce}">body { margin: 0; }</style>
</head>
<body>
<div id="reference"></div>
<script src="${BUNDLE_PATH}"></script>
<script nonce="${nonce}">
Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200,201', pathInMiddlePanel: true }, document.getElementById('reference'));
</script>
</body>
</html>
`;
}

/**
 * Only this origin: the bundle, the document and nothing else. Redoc's styling library writes style
 * elements at run time and its search index runs in a worker made from a blob, hence those two.
 */
export function docsHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'self' 'nonce-${nonce}'`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      "connect-src 'self'",
      "worker-src 'self' blob:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

export function apiDocsRoutes(document: () => Record<string, unknown>): Hono<KernelEnv> {
  const bundle = bundleLoader();
  let json: string | undefined;
  return new Hono<KernelEnv>()
    .get('/openapi.json', (c) => {
      json ??= JSON.stringify(document());
      return c.body(json, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' });
    })
    .get('/docs', (c) => {
      const nonce = newNonce();
      const title = String((document().info as { title?: string } | undefined)?.title ?? 'workspace-hub');
      return c.body(docsPage(nonce, title), 200, docsHeaders(nonce));
    })
    .get(BUNDLE_PATH, async (c) => {
      const body = await bundle();
      return c.body(body as Uint8Array<ArrayBuffer>, 200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
      });
    });
}

/** Docs of the routes the kernel itself mounts. */
export const kernelRouteDocs: RouteDocs = {
  'GET /openapi.json': {
    summary: 'This document (OpenAPI 3.1)',
    responses: { 200: { contentType: 'application/json', description: 'The OpenAPI document', schema: { type: 'object' } } },
  },
  'GET /docs': {
    summary: 'The API reference page (HTML; every script is served by the hub)',
    responses: { 200: { contentType: 'text/html', description: 'The reference page', schema: { type: 'string' } } },
  },
  [`GET ${BUNDLE_PATH}`]: {
    summary: "The reference page's script (Redoc's standalone bundle)",
    responses: { 200: { contentType: 'text/javascript', description: 'JavaScript', schema: { type: 'string' } } },
  },
  'POST /admin/config/reload': {
    summary: 'Re-read server.yaml and apply it (as SIGHUP does)',
    description: 'Validates the whole file first; on success swaps connections and reports per section. A file that fails validation changes nothing and gives 400 with `fatalError`.',
    responses: {
      200: z.object({
        sections: z.array(z.object({
          section: z.enum(RELOAD_SECTIONS),
          status: z.enum(['reloaded', 'unchanged', 'failed', 'restart-required']),
          error: z.string().optional(),
        })),
      }),
    },
  },
};
