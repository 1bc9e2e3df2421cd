/**
 * The records of live servers and live pages: a name plus a configuration object the desktop owns.
 * Every field the desktop requires on read has a type check and a default, so a record created
 * with a partial body (by curl, an older client) still reads back complete; extra keys inside list
 * entries are kept for newer clients.
 */
import { z } from 'zod';
import { attribution } from './records.ts';
import { defaultAuth, listOf } from './schemas.ts';
import type { LiveRow } from './tables.ts';

const str = () => z.string().default('');
const bool = (value: boolean) => z.boolean().default(value);
const list = <T extends z.ZodType>(item: T) => listOf(item).default(() => []);
/** The desktop keeps these as strings; a number is accepted and stored as its text. */
const stringish = z.union([z.string(), z.number()]).transform(String);

export const liveServerConfig = z.object({
  root: str(),
  port: z.number().int().min(1).max(65535).nullable().default(null),
  aliases: list(z.looseObject({ path: z.string(), target: z.string() })),
  watch: bool(true),
  cors: z
    .looseObject({
      enabled: bool(false),
      origin: z.string().default('*'),
      methods: z.string().default('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'),
      allowedHeaders: str(),
      exposedHeaders: str(),
      maxAge: stringish.default(''),
      credentials: bool(false),
    })
    .prefault({}),
  openPath: str(),
  openPathOnStartup: bool(false),
  rememberLastUrl: bool(false),
  lastOpenedPath: z.string().nullable().default(null),
  indexFiles: listOf(z.string()).default(() => ['index.html']),
  host: z.string().default('localhost'),
  headers: list(
    z.looseObject({ name: z.string(), value: z.string(), enabled: z.boolean().optional() }),
  ),
  routes: list(
    z.looseObject({ match: z.string(), target: z.string(), enabled: z.boolean().optional() }),
  ),
  errorPages: list(
    z.looseObject({ code: stringish, path: z.string(), enabled: z.boolean().optional() }),
  ),
  proxies: list(
    z.looseObject({
      path: z.string(),
      target: z.string(),
      stripPath: z.boolean().optional(),
      enabled: z.boolean().optional(),
    }),
  ),
  ssl: z.looseObject({ enabled: bool(false), certPath: str(), keyPath: str() }).prefault({}),
  runCommand: str(),
  runtimeId: str(),
  runCommandEnv: list(
    z.looseObject({ key: z.string(), value: z.string(), enabled: z.boolean().default(true) }),
  ),
  runCommandEnabled: bool(false),
  restartOnCrash: bool(false),
  urlVariable: str(),
  preRequestScripts: list(z.unknown()),
  postRequestScripts: list(z.unknown()),
  sortOrder: z.number().int().optional(),
});

export const livePageConfig = z.object({
  url: str(),
  homeUrl: str(),
  faviconDataUrl: z.string().nullable().default(null),
  scripts: list(z.unknown()),
  preRequestScripts: list(z.unknown()),
  postRequestScripts: list(z.unknown()),
  variables: list(z.unknown()),
  headers: list(z.unknown()),
  userAgent: str(),
  auth: z
    .unknown()
    .optional()
    .transform((value) => (value === undefined ? defaultAuth() : value)),
});

/** The record of a live kind: its configuration, with the row's id, name and attribution. */
function liveRecord(config: typeof liveServerConfig | typeof livePageConfig, id: string) {
  // Defaults fill fields missing from rows written before a field existed.
  const defaults = config.parse({}) as Record<string, unknown>;
  return {
    record: config
      .extend({ id: z.string(), name: z.string(), ...attribution, deletionLocked: z.boolean() })
      .meta({ id }),
    toRecord: (row: LiveRow): object => ({
      ...defaults,
      ...row.payload,
      // Server-owned fields always win over anything stored in the configuration.
      id: row.id,
      name: row.name,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      createdByUserId: row.createdByUserId,
      updatedByUserId: row.updatedByUserId,
      deletionLocked: row.deletionLocked,
    }),
  };
}

export const { record: liveServerRecord, toRecord: toLiveServerRecord } = liveRecord(
  liveServerConfig,
  'LiveServer',
);
export const { record: livePageRecord, toRecord: toLivePageRecord } = liveRecord(
  livePageConfig,
  'LivePage',
);
