/**
 * Fixtures for the notices suites: a real hub with every plugin (the notices plugin built with a
 * short heartbeat and a registry the test can watch), the shared entity fixtures, and helpers that
 * start threads, read the feed and publish comment events.
 */
import { expect } from 'vitest';
import type { PluginDefinition } from '../../kernel/plugin.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import type { DiscussionCommentCreatedEvent } from '../../plugins/discussions/events.ts';
import { loadTarget, type TargetType } from '../../plugins/entities/index.ts';
import { createNoticesPlugin } from '../../plugins/notices/index.ts';
import { createStreamRegistry } from '../../plugins/notices/stream.ts';
import type { DriverKind } from '../helpers/drivers.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useTestHub, type TestHubOptions } from '../helpers/hub.ts';

/** Every registered plugin, with the notices plugin swapped for one built with these options. */
export async function pluginsWith(
  options: Parameters<typeof createNoticesPlugin>[0],
): Promise<PluginDefinition<any>[]> {
  const { plugins } = await import('../../plugins/index.ts');
  return [...plugins.filter((p) => p.name !== 'notices'), createNoticesPlugin(options)];
}

type PublishedEvent = Partial<DiscussionCommentCreatedEvent> & {
  actorUserId: string;
  entityType: TargetType;
  entityId: string;
};

/** Starts one hub on `kind` for the enclosing describe block; read it inside tests only. */
export function useNoticesHub(kind: DriverKind, extra: TestHubOptions = {}) {
  const registry = createStreamRegistry();
  const f = fixtures(
    useTestHub(kind, async () => ({
      plugins: await pluginsWith({ heartbeatMs: 100, registry }),
      ...extra,
    })),
  );
  const { t } = f;
  /** Publishes a comment event directly, as the discussions plugin would after storing a comment. */
  async function publish({ entityType, entityId, ...event }: PublishedEvent): Promise<void> {
    const target = await loadTarget(t.store(), entityType, entityId);
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
  }
  return {
    ...f,
    registry,
    /** Starts a thread over HTTP and returns the comment. */
    comment: (path: string, body: string, token: string): Promise<{ id: string }> =>
      f.create(path, { body }, token),
    reply: (commentId: string, body: string, token: string): Promise<{ id: string }> =>
      f.create(`/discussion-comments/${commentId}/replies`, { body }, token),
    async notices(token: string, query = ''): Promise<{ notices: any[]; nextCursor?: string }> {
      const res = await t.request('GET', `/notices${query}`, { token });
      expect(res.status, res.text).toBe(200);
      return res.body;
    },
    publish,
    /** `count` comments by a new user who may see every collection, each mentioning `recipient`. */
    async mention(
      recipient: { id: string },
      entityId: string,
      count = 1,
      entityType: TargetType = 'collection',
    ): Promise<void> {
      const actor = await f.user({ collectionAccess: ['*'] });
      for (let i = 0; i < count; i++)
        await publish({
          actorUserId: actor.id,
          entityType,
          entityId,
          mentionedUserIds: [recipient.id],
        });
    },
  };
}
