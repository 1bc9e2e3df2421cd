/**
 * Concurrent clients for the circuit-breaker suites: each loop sends a request, records when it
 * was sent, when it was answered and how, pauses a little (as a client on a network would) and
 * sends the next, until stopped. The summary gives the figures the suites print and assert.
 */
import { expect } from 'vitest';
import { sleep } from '../helpers/async.ts';
import type { TestResponse } from '../helpers/hub.ts';

export interface Answer {
  sentAt: number;
  answeredAt: number;
  ms: number;
  status: number;
  body: unknown;
  retryAfter: string | null;
}

export interface ClientLoops {
  readonly answers: readonly Answer[];
  /** Stops sending; resolves once every loop's last request is answered. */
  stop(): Promise<Answer[]>;
}

/** Starts `count` loops sending `request`; each pauses `pauseMs` between its requests. */
export function startClientLoops(
  count: number,
  request: () => Promise<TestResponse>,
  pauseMs = 5,
): ClientLoops {
  const answers: Answer[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      const sentAt = Date.now();
      const res = await request();
      const answeredAt = Date.now();
      answers.push({
        sentAt,
        answeredAt,
        ms: answeredAt - sentAt,
        status: res.status,
        body: res.body,
        retryAfter: res.headers.get('retry-after'),
      });
      await sleep(pauseMs);
    }
  };
  const loops = Array.from({ length: count }, loop);
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

/** The value below which `p` of the sorted values lie (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface OutageFigures {
  /** When the first 503 of the outage was answered (the first timeout). */
  firstTimeoutAt: number;
  /** The 503s answered to requests sent after the first timeout. */
  fast503: { count: number; p50: number; p99: number; max: number };
  /** The requests sent before the first timeout and answered with 503 (they waited it out). */
  slow503: number;
  /** Milliseconds from `resumedAt` to the first 200 answered after it, or null if none came. */
  firstOkAfterResumeMs: number | null;
  /** 200s answered between the stall and its end (served without the dependency, e.g. cached). */
  okDuringOutage: number;
}

/** The figures of one outage between `stalledAt` and `resumedAt`. */
export function outageFigures(
  answers: readonly Answer[],
  stalledAt: number,
  resumedAt: number,
): OutageFigures {
  const during = answers.filter((a) => a.answeredAt >= stalledAt && a.sentAt < resumedAt);
  const unavailable = during.filter((a) => a.status === 503);
  const firstTimeoutAt = Math.min(...unavailable.map((a) => a.answeredAt));
  const fast = unavailable
    .filter((a) => a.sentAt >= firstTimeoutAt)
    .map((a) => a.ms)
    .sort((x, y) => x - y);
  const firstOk = answers
    .filter((a) => a.status === 200 && a.answeredAt >= resumedAt)
    .reduce((min, a) => Math.min(min, a.answeredAt), Infinity);
  return {
    firstTimeoutAt,
    fast503: {
      count: fast.length,
      p50: percentile(fast, 50),
      p99: percentile(fast, 99),
      max: fast.at(-1) ?? NaN,
    },
    slow503: unavailable.filter((a) => a.sentAt < firstTimeoutAt).length,
    firstOkAfterResumeMs: firstOk === Infinity ? null : firstOk - resumedAt,
    okDuringOutage: during.filter((a) => a.status === 200 && a.answeredAt < resumedAt).length,
  };
}

/**
 * Prints one outage's figures and asserts what every breaker suite expects of it: hundreds of 503s
 * answered at once after the first timeout (p99 under `p99BelowMs`), each the JSON error with
 * `Retry-After: 1`; nothing but 200 and 503; a 200 within 3 s of the dependency's return, and only
 * 200s to requests sent after that first one.
 */
export function expectFastOutage(
  label: string,
  answers: readonly Answer[],
  stalledAt: number,
  resumedAt: number,
  p99BelowMs: number,
): OutageFigures {
  const figures = outageFigures(answers, stalledAt, resumedAt);
  console.log(
    `[faults] ${label}: first 503 after ${figures.firstTimeoutAt - stalledAt} ms ` +
      `(${figures.slow503} waited it out); then ${figures.fast503.count} 503s, ` +
      `p50 ${figures.fast503.p50} ms, p99 ${figures.fast503.p99} ms, max ${figures.fast503.max} ms; ` +
      `${figures.okDuringOutage} 200s during the outage; ` +
      `first 200 ${figures.firstOkAfterResumeMs} ms after it ended`,
  );
  expect(figures.fast503.count).toBeGreaterThan(100);
  expect(figures.fast503.p99).toBeLessThan(p99BelowMs);
  expect(figures.firstOkAfterResumeMs).not.toBeNull();
  expect(figures.firstOkAfterResumeMs!).toBeLessThan(3000);
  for (const answer of answers.filter((a) => a.status === 503)) {
    expect(answer.body).toEqual({ error: 'Service Unavailable', code: 'service_unavailable' });
    expect(answer.retryAfter).toBe('1');
  }
  expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
  const settled = answers.filter((a) => a.sentAt >= resumedAt + figures.firstOkAfterResumeMs!);
  expect(settled.length).toBeGreaterThan(0);
  expect(settled.map((a) => a.status)).toEqual(settled.map(() => 200));
  return figures;
}
