/**
 * The `notices` plugin: turns new discussion comments into per-user notices, serves the feed and
 * the notification level, and pushes "new notice" events to open SSE streams — in process on a
 * single hub, over Redis pub/sub when a `redis` section lets several instances share the work. A
 * stream ends once its token no longer authenticates (revocation.ts).
 */
import { CONFIG_RELOADED, type ConfigReloadedEvent } from '../../kernel/config/reload.ts';
import type { RedisConfig } from '../../kernel/redis/config.ts';
import { createPluginApp, definePlugin, type PluginDefinition } from '../../kernel/plugin.ts';
import { noticesApi } from './api.ts';
import { deleteNoticesOfRemoved } from './cleanup.ts';
import { createCommentNotices } from './create.ts';
import { updateCommentPreviews } from './previews.ts';
import { createMemoryFanout, createRedisFanout } from './fanout.ts';
import { watchStreamTokens } from './revocation.ts';
import { noticeRoutes } from './routes.ts';
import { createSwitchableFanout } from './switchable.ts';
import {
  createStreamRegistry,
  DEFAULT_HEARTBEAT_MS,
  streamRoutes,
  type StreamRegistry,
} from './stream.ts';
import { noticeMigrations } from './migrations.ts';
import { noticesTable, noticeTables, notificationSettingsTable } from './tables.ts';
import {
  ENTITIES_DELETED,
  ITEM_MOVED,
  type EntitiesDeletedEvent,
  type ItemMovedEvent,
} from '../entities/index.ts';
import { moveNoticesOfItem } from './moves.ts';
import {
  DISCUSSION_COMMENT_CHANGED,
  DISCUSSION_COMMENT_CREATED,
  type DiscussionCommentChangedEvent,
  type DiscussionCommentCreatedEvent,
} from '../discussions/index.ts';

export interface NoticesPluginOptions {
  /**
   * Milliseconds between `: heartbeat` comments on open streams. An option rather than a config
   * section because only tests change it. @default 30000
   */
  heartbeatMs?: number;
  /** The registry of open streams; tests pass their own to watch streams open and close. */
  registry?: StreamRegistry;
}

/** Builds the plugin; `noticesPlugin` is the instance with the defaults. */
export function createNoticesPlugin(
  options: NoticesPluginOptions = {},
): PluginDefinition<undefined> {
  return definePlugin({
    name: 'notices',
    api: noticesApi,
    dependencies: ['discussions', 'entities', 'avatars'],
    tables: noticeTables,
    migrations: noticeMigrations,
    setup(ctx) {
      const transport = (redis: RedisConfig | undefined) =>
        redis ? createRedisFanout(redis, ctx.log) : createMemoryFanout(ctx.log);
      const fanout = createSwitchableFanout(transport(ctx.hubConfig().redis), ctx.log);
      const registry = options.registry ?? createStreamRegistry();
      ctx.metrics.gaugeFrom('notice_streams', 'Notice streams (SSE) open on this instance', () =>
        registry.size(),
      );
      const deps = { storage: ctx.storage, clock: ctx.clock, fanout };

      const unsubscribe = [
        fanout.subscribe((message) => registry.deliver(message)),
        ctx.events.subscribe<DiscussionCommentCreatedEvent>(
          DISCUSSION_COMMENT_CREATED,
          async (event) => {
            await createCommentNotices(deps, event);
          },
        ),
        // Inside the comment's own transaction: an edit or delete reaches every preview, or fails.
        ctx.events.subscribe<DiscussionCommentChangedEvent>(
          DISCUSSION_COMMENT_CHANGED,
          updateCommentPreviews,
        ),
        // Inside the move's transaction: a moved request's notices follow it (the feed's scope).
        ctx.events.subscribe<ItemMovedEvent>(ITEM_MOVED, moveNoticesOfItem),
        ctx.events.subscribe<EntitiesDeletedEvent>(ENTITIES_DELETED, async (event) => {
          await deleteNoticesOfRemoved(ctx.storage(event.tenantId), event);
        }),
        // A reload that changed `redis` moves the fan-out to the new Redis (or into memory).
        ctx.events.subscribe<ConfigReloadedEvent>(CONFIG_RELOADED, async (event) => {
          if (event.changed.includes('redis')) await fanout.replace(transport(event.config.redis));
        }),
      ];
      // A deleted account's feed and settings go with it, in the deletion's transaction.
      ctx.identity.users.onDelete(async (tx, user) => {
        await tx.table(noticesTable).deleteWhere({ recipientUserId: user.id });
        await tx.table(notificationSettingsTable).delete(user.id);
      });
      // A stream ends when its token stops working, whichever process revoked it.
      const tokenWatch = watchStreamTokens({
        registry,
        storage: ctx.storage,
        tokens: ctx.identity.tokens,
        log: ctx.log,
      });
      // Open streams would otherwise hold a graceful shutdown until its timeout.
      const endStreams = () => {
        tokenWatch.close();
        registry.shutdown();
      };
      ctx.signal.addEventListener('abort', endStreams, { once: true });

      const routes = createPluginApp();
      noticeRoutes(routes, {
        clock: ctx.clock,
        e2ee: () => ctx.hubConfig().collaboration.e2ee,
      });
      streamRoutes(routes, {
        registry,
        fanout,
        heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
        clock: ctx.clock,
      });
      return {
        routes,
        async close() {
          endStreams();
          for (const off of unsubscribe) off();
          await fanout.close();
        },
      };
    },
  });
}

export const noticesPlugin = createNoticesPlugin();

export { NOTICE_KINDS, type NoticeKind } from './recipients.ts';
export type { NoticeRecord } from './records.ts';
export type { NoticeMessage } from './fanout.ts';
