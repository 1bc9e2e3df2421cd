/**
 * The kernel's event bus: plugins publish and subscribe to named topics inside one hub process.
 * `publish` waits for every handler (they may be async), so a write and its side effects (notices
 * after a comment, say) have both happened by the time the request answers; `publishInTransaction`
 * goes further and makes them one transaction (a comment's edit and its notices' previews). Fan-out
 * across hub instances is a plugin's concern (notices use Redis pub/sub), not this bus's.
 */
export type EventHandler<T = unknown> = (payload: T) => void | Promise<void>;

export interface EventBus {
  /** Runs every handler of `topic`; one failing handler is reported and never fails the publisher. */
  publish<T>(topic: string, payload: T): Promise<void>;
  /**
   * For a change whose consequences in other plugins must land in the same transaction (the
   * payload carries the transaction's store): runs the handlers of `topic` one after another and
   * lets the first failure reach the publisher, so its whole transaction rolls back. A retried
   * transaction publishes again, so handlers must give the same result when run twice.
   */
  publishInTransaction<T>(topic: string, payload: T): Promise<void>;
  /** Returns a function that unsubscribes. */
  subscribe<T>(topic: string, handler: EventHandler<T>): () => void;
  close(): Promise<void>;
}

export function createMemoryEventBus(
  onHandlerError: (error: unknown) => void = () => {},
): EventBus {
  const handlers = new Map<string, Set<EventHandler>>();
  return {
    async publish(topic, payload) {
      const set = handlers.get(topic);
      if (!set || set.size === 0) return;
      // One failing subscriber must not stop the others or the publisher.
      const results = await Promise.allSettled([...set].map(async (handler) => handler(payload)));
      for (const result of results) if (result.status === 'rejected') onHandlerError(result.reason);
    },
    async publishInTransaction(topic, payload) {
      // One at a time: the handlers share one transaction, whose connection runs one statement.
      for (const handler of [...(handlers.get(topic) ?? [])]) await handler(payload);
    },
    subscribe(topic, handler) {
      let set = handlers.get(topic);
      if (!set) handlers.set(topic, (set = new Set()));
      set.add(handler as EventHandler);
      return () => set.delete(handler as EventHandler);
    },
    async close() {
      handlers.clear();
    },
  };
}
