/**
 * A fan-out whose transport can be replaced while the hub runs: a config reload that changes the
 * `redis` section moves notices to the new Redis (or back into memory) without dropping the open
 * streams, which subscribe to this wrapper rather than to a transport.
 */
import type { Logger } from '../../kernel/log.ts';
import type { NoticeFanout, NoticeMessage } from './fanout.ts';

export interface SwitchableFanout extends NoticeFanout {
  /** Starts delivering from `next`, then closes the transport used so far. */
  replace(next: NoticeFanout): Promise<void>;
}

export function createSwitchableFanout(initial: NoticeFanout, log: Logger): SwitchableFanout {
  const handlers = new Set<(message: NoticeMessage) => void>();
  const forward = (message: NoticeMessage) => {
    for (const handler of handlers) {
      try {
        handler(message);
      } catch (error) {
        log.error('Notice stream delivery failed', { error });
      }
    }
  };
  let current = initial;
  let unsubscribe = current.subscribe(forward);
  return {
    publish: (message) => current.publish(message),
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    ready: () => current.ready(),
    async replace(next) {
      // Subscribe first: a message published on the new transport during the switch is not lost.
      const nextUnsubscribe = next.subscribe(forward);
      const [old, oldUnsubscribe] = [current, unsubscribe];
      [current, unsubscribe] = [next, nextUnsubscribe];
      oldUnsubscribe();
      await old.close();
    },
    async close() {
      handlers.clear();
      unsubscribe();
      await current.close();
    },
  };
}
