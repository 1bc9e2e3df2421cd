/**
 * Fixtures over HTTP for a test hub: entities created through the API as a client creates them (so
 * every fixture goes through the same rules), accounts with access lists, and listings read back.
 */
import { beforeAll, expect } from 'vitest';
import { ENTITY_ACCESS_FIELDS } from '../../kernel/identity/access.ts';
import type { UserInput } from '../../kernel/identity/users.ts';
import { uniqueName, type TestHub } from './hub.ts';

export interface Account {
  id: string;
  token: string;
}

/** The top-level entity kinds: their route, listing key, name in messages and access-list field. */
export const TOP_LEVEL_ENTITIES = [
  { path: '/collections', key: 'collections', noun: 'collection', field: 'collectionAccess' },
  { path: '/environments', key: 'environments', noun: 'environment', field: 'environmentAccess' },
  { path: '/snippets', key: 'snippets', noun: 'snippet', field: 'snippetAccess' },
  { path: '/live-servers', key: 'liveServers', noun: 'live server', field: 'liveServerAccess' },
  { path: '/live-pages', key: 'livePages', noun: 'live page', field: 'livePageAccess' },
] as const;

/** Access lists that give a user-role account every entity of every kind (`["*"]` each). */
export const EVERY_ENTITY: UserInput = Object.fromEntries(
  ENTITY_ACCESS_FIELDS.map((field) => [field, ['*']]),
);

/** The six access lists of an account created without any, as the API returns them. */
export const NO_ACCESS = {
  collectionAccess: [],
  environmentAccess: [],
  snippetAccess: [],
  liveServerAccess: [],
  livePageAccess: [],
  llmModels: [],
} as const;

export type Extra = Record<string, unknown>;

export interface Fixtures<T extends TestHub> {
  t: T;
  /** POSTs (as the admin unless a token is given) and expects 200 (201 for the admin creates); returns the record. */
  create(path: string, body: Extra, token?: string): Promise<any>;
  collection(token?: string, extra?: Extra): Promise<any>;
  folder(collectionId: string, extra?: Extra, token?: string): Promise<any>;
  /** A saved request in the collection. */
  request(collectionId: string, extra?: Extra, token?: string): Promise<any>;
  document(collectionId: string, extra?: Extra, token?: string): Promise<any>;
  /** A user-role account with these access lists. */
  user(access?: UserInput): Promise<Account>;
  /** Ids in the listing at `path` (under `key`), in order, restricted to `ids` when given. */
  listIds(path: string, key: string, token?: string, ids?: readonly string[]): Promise<string[]>;
}

const withToken = (token?: string) => (token ? { token } : {});

/** Fixtures on `t` (a used hub may be passed before it starts: they read it when called). */
export function fixtures<T extends TestHub>(t: T): Fixtures<T> {
  const create: Fixtures<T>['create'] = async (path, body, token) => {
    const res = await t.request('POST', path, { body, ...withToken(token) });
    expect(res.status, `POST ${path}: ${res.text}`).toBe(path.startsWith('/admin/') ? 201 : 200);
    return res.body;
  };
  const inCollection =
    (kind: string) =>
    (collectionId: string, extra: Extra = {}, token?: string) =>
      create(`/collections/${collectionId}/${kind}s`, { name: uniqueName(kind), ...extra }, token);
  return {
    t,
    create,
    collection: (token, extra = {}) =>
      create('/collections', { name: uniqueName('collection'), ...extra }, token),
    folder: inCollection('folder'),
    request: inCollection('request'),
    document: inCollection('document'),
    user: (access = {}) => t.createUser(access),
    async listIds(path, key, token, ids) {
      const res = await t.request('GET', path, withToken(token));
      expect(res.status, `GET ${path}: ${res.text}`).toBe(200);
      const all = (res.body[key] as { id: string }[]).map((row) => row.id);
      return ids ? all.filter((id) => ids.includes(id)) : all;
    },
  };
}

/** An account on `t` with these access lists, created before the block's tests; read it inside tests. */
export function useUser(t: TestHub, access: UserInput = {}): Account {
  let account: Account | undefined;
  beforeAll(async () => {
    account = await t.createUser(access);
  });
  const created = () => {
    if (!account) throw new Error('The account is created in beforeAll: read it inside tests.');
    return account;
  };
  return {
    get id() {
      return created().id;
    },
    get token() {
      return created().token;
    },
  };
}
