/** Time as the hub sees it; injectable so tests can move it. */
export interface Clock {
  now(): Date;
  /** `now()` as an ISO 8601 string in UTC with milliseconds. */
  iso(): string;
}

export const systemClock: Clock = {
  now: () => new Date(),
  iso: () => new Date().toISOString(),
};

/** A clock that only moves when told to (tests). */
export function createManualClock(
  start = new Date('2026-01-01T00:00:00.000Z'),
): Clock & { advance(ms: number): void; set(date: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    iso: () => new Date(current).toISOString(),
    advance: (ms) => void (current += ms),
    set: (date) => void (current = date.getTime()),
  };
}
