/**
 * The `discussions` plugin: threaded comments on saved requests, collections, folders and run
 * results, thread subscriptions, and the `discussions.comment.created` event the notices plugin
 * turns into notices (and `discussions.comment.changed`, which keeps their previews true). On E2EE hubs (`collaboration.e2ee`) bodies are ciphertext the hub never reads.
 */
import { createPluginApp, definePlugin } from '../../kernel/plugin.ts';
import { discussionsApi } from './api.ts';
import { removeDiscussions } from './cleanup.ts';
import { commentRoutes } from './comments.ts';
import {
  commentsTable,
  discussionMigrations,
  discussionTables,
  subscriptionsTable,
} from './tables.ts';
import { threadRoutes } from './threads.ts';
import type { DiscussionDeps } from './write.ts';
import { ENTITIES_DELETED, type EntitiesDeletedEvent } from '../entities/index.ts';

export const discussionsPlugin = definePlugin({
  name: 'discussions',
  api: discussionsApi,
  // mls-relay owns the device keys that sign encrypted comments; avatars, how authors appear.
  dependencies: ['entities', 'mls-relay', 'avatars'],
  tables: discussionTables,
  migrations: discussionMigrations,
  setup(ctx) {
    const deps: DiscussionDeps = {
      clock: ctx.clock,
      events: ctx.events,
      // A getter, not a copy: a config reload may switch E2EE on or off without a restart.
      e2ee: () => ctx.hubConfig().collaboration.e2ee,
      cache: ctx.cache,
    };
    // The overview counts threads: a thread is its root comment.
    ctx.counts.register('discussions', (store) => store.table(commentsTable).count({ depth: 1 }));
    const unsubscribe = ctx.events.subscribe<EntitiesDeletedEvent>(ENTITIES_DELETED, (event) =>
      removeDiscussions(ctx.storage(event.tenantId), event),
    );
    // A deleted account watches nothing; its comments stay, shown as by "Unknown user".
    ctx.identity.users.onDelete(async (tx, user) => {
      await tx.table(subscriptionsTable).deleteWhere({ userId: user.id });
    });
    const routes = createPluginApp();
    commentRoutes(routes, deps);
    threadRoutes(routes, deps);
    return {
      routes,
      async close() {
        unsubscribe();
      },
    };
  },
});

// The plugin's public face: the only names other plugins may import from discussions.
export {
  currentCommentText,
  DISCUSSION_COMMENT_CHANGED,
  DISCUSSION_COMMENT_CREATED,
  type DiscussionCommentChangedEvent,
  type DiscussionCommentCreatedEvent,
} from './events.ts';
export { subscriptionsTable } from './tables.ts';
