/**
 * The notice fan-out: after notices are stored, one message per notice goes to every hub instance,
 * and each instance hands it to its own open streams. Without a `redis` section the hub is a single
 * process and the fan-out stays in memory; with one, messages travel over Redis pub/sub on two
 * dedicated connections (a subscribed connection cannot send ordinary commands).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../../kernel/log.ts';
import { closeRedisClient, createRedisClient } from '../../kernel/redis/client.ts';
import type { RedisConfig } from '../../kernel/redis/config.ts';

/** What one instance tells all others about a new notice. */
export interface NoticeMessage {
  v: 1;
  type: 'notice.created';
  tenantId: string;
  recipientUserId: string;
  noticeId: string;
  /** The recipient's unread count right after the notice was stored. */
  unreadCount: number;
}

export interface NoticeFanout {
  /** Delivers the message to every instance; never rejects (a failed publish is logged). */
  publish(message: NoticeMessage): Promise<void>;
  /** Receives every message published by any instance, this one included. */
  subscribe(handler: (message: NoticeMessage) => void): () => void;
  /** Whether messages published now would reach this instance (false while Redis is down). */
  ready(): boolean;
  close(): Promise<void>;
}

type Handlers = Set<(message: NoticeMessage) => void>;

function deliver(handlers: Handlers, message: NoticeMessage, log: Logger): void {
  for (const handler of handlers) {
    try {
      handler(message);
    } catch (error) {
      log.error('Notice stream delivery failed', { error });
    }
  }
}

/** The in-process fan-out of a single hub instance. */
export function createMemoryFanout(log: Logger): NoticeFanout {
  const handlers: Handlers = new Set();
  return {
    async publish(message) {
      deliver(handlers, message, log);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    ready: () => true,
    async close() {
      handlers.clear();
    },
  };
}

/** The channel name: under the configured key prefix, so hubs (and test runs) sharing a Redis never cross. */
export function noticeChannel(config: Pick<RedisConfig, 'keyPrefix'>): string {
  return `${config.keyPrefix}notice-events`;
}

/** Accepts only well-formed messages: anything else on the channel is ignored, never delivered. */
function parseMessage(raw: string): NoticeMessage | null {
  try {
    const value = JSON.parse(raw) as Partial<NoticeMessage>;
    const strings = [value.tenantId, value.recipientUserId, value.noticeId].every(
      (s) => typeof s === 'string' && s,
    );
    if (
      value.v !== 1 ||
      value.type !== 'notice.created' ||
      !strings ||
      typeof value.unreadCount !== 'number'
    )
      return null;
    return value as NoticeMessage;
  } catch {
    return null;
  }
}

/** The Redis pub/sub fan-out used when several hub instances share one Redis. */
export function createRedisFanout(config: RedisConfig, log: Logger): NoticeFanout {
  const channel = noticeChannel(config);
  const handlers: Handlers = new Set();
  const publisher: Redis = createRedisClient(config, { purpose: 'notice-pub', log });
  const subscriber: Redis = createRedisClient(config, { purpose: 'notice-sub', log });
  let subscribed = false;

  // (Re)subscribe on every connection: a reconnected socket has no subscriptions of its own, and
  // until SUBSCRIBE is confirmed messages would be lost, so the stream route answers 503 meanwhile.
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => void (subscribed = true),
      (error: Error) => log.warn('Could not subscribe to notice events', { error: error.message }),
    );
  });
  subscriber.on('close', () => void (subscribed = false));
  subscriber.on('message', (from: string, raw: string) => {
    if (from !== channel) return;
    const message = parseMessage(raw);
    if (message) deliver(handlers, message, log);
  });

  return {
    async publish(message) {
      try {
        await publisher.publish(channel, JSON.stringify(message));
      } catch (error) {
        // The notice is stored; a client that misses the push sees it on its next fetch.
        log.warn('Could not publish a notice event', {
          error: (error as Error).message,
          noticeId: message.noticeId,
        });
      }
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    // Both ends: a stream opened while the publisher is still reconnecting would miss the pushes
    // of notices created meanwhile (a failed publish is not retried).
    ready: () => subscribed && subscriber.status === 'ready' && publisher.status === 'ready',
    async close() {
      handlers.clear();
      subscribed = false;
      await Promise.all([closeRedisClient(publisher), closeRedisClient(subscriber)]);
    },
  };
}
