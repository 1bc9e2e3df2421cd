/**
 * What the desktop client requires of each record it reads (inventory appendix and B.4/B.5/B.9),
 * written as zod schemas so tests can assert that every response would pass the client's checks.
 */
import { z } from 'zod';

const timestamp = z.iso.datetime();
const keyValue = z.object({ key: z.string(), value: z.string(), enabled: z.boolean() });
const variable = z.object({
  key: z.string(),
  value: z.string(),
  defaultValue: z.string(),
  enabled: z.boolean().optional(),
  share: z.boolean(),
});
const auth = z.object({
  type: z.enum(['none', 'basic', 'bearer']),
  basic: z.object({ username: z.string(), password: z.string() }),
  bearer: z.object({ token: z.string() }),
});
const marker = z.string().nullable().optional();
const attribution = {
  createdAt: timestamp,
  updatedAt: timestamp,
  createdByUserId: z.string().nullable(),
  updatedByUserId: z.string().nullable(),
};

export const collectionShape = z.strictObject({
  id: z.string(),
  name: z.string(),
  variables: z.array(variable),
  headers: z.array(keyValue),
  auth,
  preRequestScript: z.string(),
  postRequestScript: z.string(),
  ...attribution,
  deletionLocked: z.boolean(),
  marker,
});

export const environmentShape = z.strictObject({
  id: z.string(),
  name: z.string(),
  variables: z.array(variable),
  parentUuid: z.string().nullable(),
  ...attribution,
  deletionLocked: z.boolean(),
  marker,
});

export const snippetShape = z.strictObject({
  id: z.string(),
  name: z.string(),
  code: z.string(),
  scope: z.enum(['pre-request', 'post-request', 'any']),
  sortOrder: z.number().int(),
  ...attribution,
  deletionLocked: z.boolean(),
});

const flag = z.boolean().optional();
export const liveServerShape = z.object({
  id: z.string(),
  name: z.string(),
  root: z.string(),
  port: z.number().int().nullable(),
  aliases: z.array(z.object({ path: z.string(), target: z.string() })),
  watch: z.boolean(),
  cors: z.object({
    enabled: z.boolean(),
    origin: z.string(),
    methods: z.string(),
    allowedHeaders: z.string(),
    exposedHeaders: z.string(),
    maxAge: z.string(),
    credentials: z.boolean(),
  }),
  openPath: z.string(),
  openPathOnStartup: z.boolean(),
  rememberLastUrl: z.boolean(),
  lastOpenedPath: z.string().nullable(),
  indexFiles: z.array(z.string()),
  host: z.string(),
  headers: z.array(z.object({ name: z.string(), value: z.string(), enabled: flag })),
  routes: z.array(z.object({ match: z.string(), target: z.string(), enabled: flag })),
  errorPages: z.array(z.object({ code: z.string(), path: z.string(), enabled: flag })),
  proxies: z.array(
    z.object({ path: z.string(), target: z.string(), stripPath: flag, enabled: flag }),
  ),
  ssl: z.object({ enabled: z.boolean(), certPath: z.string(), keyPath: z.string() }),
  runCommand: z.string(),
  runtimeId: z.string(),
  runCommandEnv: z.array(z.object({ key: z.string(), value: z.string(), enabled: z.boolean() })),
  runCommandEnabled: z.boolean(),
  restartOnCrash: z.boolean(),
  urlVariable: z.string(),
  preRequestScripts: z.array(z.unknown()),
  postRequestScripts: z.array(z.unknown()),
  sortOrder: z.number().int().optional(),
  ...attribution,
  deletionLocked: z.boolean(),
});

export const livePageShape = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  homeUrl: z.string(),
  faviconDataUrl: z.string().nullable(),
  scripts: z.array(z.unknown()),
  preRequestScripts: z.array(z.unknown()),
  postRequestScripts: z.array(z.unknown()),
  variables: z.array(z.unknown()),
  headers: z.array(z.unknown()),
  userAgent: z.string(),
  auth: z.unknown(),
  ...attribution,
  deletionLocked: z.boolean(),
});

export const folderShape = z.strictObject({
  id: z.string(),
  collectionId: z.string(),
  parentFolderId: z.string().nullable(),
  name: z.string(),
  sortOrder: z.number().int(),
  ...attribution,
  marker,
});

export const requestShape = z.strictObject({
  id: z.string(),
  collectionId: z.string(),
  folderId: z.string().nullable(),
  name: z.string(),
  protocol: z.enum(['http', 'sse']),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']),
  url: z.string(),
  headers: z.array(keyValue),
  params: z.array(keyValue),
  auth,
  body: z.string(),
  bodyType: z.enum(['none', 'json', 'text', 'multipart', 'urlencoded']),
  preRequestScript: z.string(),
  postRequestScript: z.string(),
  comment: z.string(),
  sortOrder: z.number().int(),
  ...attribution,
  marker,
});

export const documentShape = z.strictObject({
  id: z.string(),
  collectionId: z.string(),
  folderId: z.string().nullable(),
  name: z.string(),
  content: z.string(),
  sortOrder: z.number().int(),
  ...attribution,
  marker,
});

export const runResultShape = z.strictObject({
  id: z.string(),
  kind: z.enum(['collection-run-results', 'request-run-results']),
  label: z.string(),
  collectionName: z.string().nullable(),
  requestName: z.string().nullable(),
  summary: z.object({
    passed: z.number().int().min(0),
    failed: z.number().int().min(0),
    skipped: z.number().int().min(0),
  }),
  createdAt: timestamp,
  createdByUserId: z.string().nullable(),
});
export const runResultDetailShape = runResultShape.extend({
  payload: z.record(z.string(), z.unknown()),
});

export const adminSummaryShape = z.strictObject({
  id: z.string(),
  name: z.string(),
  deletionLocked: z.boolean(),
});

/** Asserts `value` passes `shape`, with the first problem in the failure message. */
export function assertShape(shape: z.ZodType, value: unknown): void {
  const result = shape.safeParse(value);
  if (!result.success)
    throw new Error(
      `response does not match the desktop's shape: ${JSON.stringify(result.error.issues[0])}`,
    );
}
