/**
 * The kernel's event bus: plugins publish and subscribe to named topics. This in-process bus is the
 * default; a Redis-backed bus (for several instances) implements the same interface.
 */
export type EventHandler<T = unknown> = (payload: T) => void;

export interface EventBus {
  publish<T>(topic: string, payload: T): Promise<void>;
  /** Returns a function that unsubscribes. */
  subscribe<T>(topic: string, handler: EventHandler<T>): () => void;
  close(): Promise<void>;
}

export function createMemoryEventBus(onHandlerError: (error: unknown) => void = () => {}): EventBus {
  const handlers = new Map<string, Set<EventHandler>>();
  return {
    async publish(topic, payload) {
      for (const handler of handlers.get(topic) ?? []) {
        // One failing subscriber must not stop the others or the publisher.
        try {
          handler(payload);
        } catch (error) {
          onHandlerError(error);
        }
      }
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
