/**
 * Fixtures for the notices suites: a real hub with every plugin (the notices plugin built with a
 * short heartbeat and a registry the test can watch), helpers that create targets and comments over
 * HTTP, and a reader that consumes an SSE body incrementally.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { UserInput } from '../../kernel/identity/users.ts';
import type { PluginDefinition } from '../../kernel/plugin.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { DiscussionCommentCreatedEvent } from '../../plugins/discussions/events.ts';
import { loadTarget } from '../../plugins/discussions/targets.ts';
import type { DiscussionEntityType } from '../../plugins/discussions/tables.ts';
import { createNoticesPlugin } from '../../plugins/notices/index.ts';
import { createStreamRegistry, type StreamRegistry } from '../../plugins/notices/stream.ts';
import { openTestDriver, type TestDriver } from '../helpers/drivers.ts';
import { startTestHub, uniqueName, type StartTestHubOptions, type TestHub } from '../helpers/hub.ts';

/** Every registered plugin, with the notices plugin swapped for one built with these options. */
export async function pluginsWith(options: Parameters<typeof createNoticesPlugin>[0]): Promise<PluginDefinition<any>[]> {
  const { plugins } = await import('../../plugins/index.ts');
  return [...plugins.filter((p) => p.name !== 'notices'), createNoticesPlugin(options)];
}

export interface Account {
  id: string;
  token: string;
}

export interface NoticesFixture {
  t: TestHub;
  registry: StreamRegistry;
  user(access?: UserInput): Promise<Account>;
  collection(token?: string): Promise<{ id: string; name: string }>;
  request(collectionId: string, token?: string): Promise<{ id: string; name: string; method: string }>;
  /** Starts a thread over HTTP and returns the comment. */
  comment(path: string, body: string, token: string): Promise<{ id: string }>;
  reply(commentId: string, body: string, token: string): Promise<{ id: string }>;
  notices(token: string, query?: string): Promise<{ notices: any[]; nextCursor?: string }>;
  /** Publishes a comment event directly, as the discussions plugin would after storing a comment. */
  publish(event: Partial<DiscussionCommentCreatedEvent> & { actorUserId: string; entityType: DiscussionEntityType; entityId: string }): Promise<void>;
}

/** Starts one hub on `kind` for the enclosing describe block. */
export function useNoticesHub(kind: string, extra: Partial<StartTestHubOptions> = {}): NoticesFixture {
  let db: TestDriver;
  let t: TestHub;
  const registry = createStreamRegistry();
  beforeAll(async () => {
    db = await openTestDriver(kind as never);
    t = await startTestHub({ driver: db.driver, plugins: await pluginsWith({ heartbeatMs: 100, registry }), ...extra });
  });
  afterAll(async () => {
    await t?.close();
    await db?.cleanup();
  });

  const post = async (path: string, body: unknown, token?: string) => {
    const res = await t.request('POST', path, { body, ...(token ? { token } : {}) });
    expect(res.status, `POST ${path}: ${res.text}`).toBe(200);
    return res.body;
  };
  return {
    get t() {
      return t;
    },
    registry,
    user: (access = {}) => t.createUser({ name: uniqueName('u'), ...access }),
    collection: (token) => post('/collections', { name: uniqueName('collection') }, token),
    request: (collectionId, token) => post(`/collections/${collectionId}/requests`, { name: uniqueName('request'), method: 'POST' }, token),
    comment: (path, body, token) => post(path, { body }, token),
    reply: (commentId, body, token) => post(`/discussion-comments/${commentId}/replies`, { body }, token),
    async notices(token, query = '') {
      const res = await t.request('GET', `/notices${query}`, { token });
      expect(res.status, res.text).toBe(200);
      return res.body;
    },
    async publish({ entityType, entityId, ...event }) {
      const target = await loadTarget(t.hub.driver().forTenant(DEFAULT_TENANT_ID), entityType, entityId);
      if (!target) throw new Error(`No ${entityType} ${entityId}`);
      const id = event.comment?.id ?? crypto.randomUUID();
      await t.hub.events.publish<DiscussionCommentCreatedEvent>('discussions.comment.created', {
        tenantId: DEFAULT_TENANT_ID,
        isReply: false,
        parentAuthorUserId: null,
        mentionedUserIds: [],
        comment: { id, parentCommentId: null, rootCommentId: id, depth: 1, plaintext: 'hello' },
        target,
        ...event,
      });
    },
  };
}
