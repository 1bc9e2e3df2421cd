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

/**
 * An ISO 8601 date (`2026-01-02`) or date-time with `Z` or an offset, as UTC with milliseconds;
 * null for anything else (times without a zone are ambiguous, so they are refused).
 */
export function parseIsoTime(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text))
    return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
