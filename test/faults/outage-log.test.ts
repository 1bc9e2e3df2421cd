/**
 * What an outage leaves in the log: the hub's real logger is captured while its PostgreSQL
 * (HUB_TEST_PG_URL, reached through an in-test TCP proxy) becomes unreachable and comes back. One
 * "down" line with the cause and one "available again" line with the duration, not one line per
 * failed request; and the periodic count of failed requests while the outage lasts.
 * Skipped only when the variable is unset outside CI; under CI=true it must be set.
 */
import { describe, expect, it } from 'vitest';
import { createOutageLog } from '../../kernel/outage.ts';
import { StorageError } from '../../kernel/storage/contract.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { eventually, sleep } from '../helpers/async.ts';
import { useUser } from '../helpers/fixtures.ts';
import { captureLog, useHubBehindProxy } from './support.ts';

describe.skipIf(!driverAvailable('postgres'))('the log during a database outage (postgres)', () => {
  const captured = captureLog();
  const behind = useHubBehindProxy(
    'postgres',
    { queryTimeoutMillis: 1000, acquireTimeoutMillis: 1000 },
    { log: captured.log },
  );
  const { t } = behind;
  const owner = useUser(t, { collectionAccess: ['*'] });

  it('logs one down line with the cause and one back-up line with the duration for 40 failed requests', async () => {
    const list = () => t.request('GET', '/collections', { token: owner.token });
    expect((await list()).status).toBe(200);
    const before = captured.entries().length;

    behind.proxy.cut();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        ...(await Promise.all(Array.from({ length: 10 }, async () => (await list()).status))),
      );
      await sleep(50);
    }
    expect(statuses).toEqual(Array(40).fill(503));
    behind.proxy.restore();
    await eventually(async () => (await list()).status === 200, 10_000, 'a 200 after the outage');
    await eventually(
      () => captured.entries().some((e) => /available again/.test(e.msg)),
      5000,
      'the back-up line',
    );

    const lines = captured.entries().slice(before);
    const down = lines.filter((e) => e.dependency === 'Database' && e.level === 'error');
    expect(down).toHaveLength(1);
    expect(down[0]!.msg).toMatch(/^Database unavailable/);
    expect(down[0]!.cause).toMatch(
      /ECONNRESET|ECONNREFUSED|terminated|closed|timeout|did not answer/i,
    );
    const up = lines.filter((e) => /^Database available again after \d+\.\d s$/.test(e.msg));
    expect(up).toHaveLength(1);
    expect(up[0]!.downForMs).toBeGreaterThan(0);
    expect(up[0]!.failedRequests).toBeGreaterThanOrEqual(40);
    // Nothing else is logged per failed request.
    expect(
      lines.filter((e) => e.level === 'error' || e.level === 'warn'),
      JSON.stringify(lines, null, 1),
    ).toHaveLength(1);
  });
});

describe('the outage log', () => {
  it('reports the count of failed requests periodically while the dependency is down, then the recovery', async () => {
    const captured = captureLog();
    let up = false;
    const outages = createOutageLog(captured.log, {
      probes: {
        Database: async () => {
          if (!up) throw new Error('still down');
        },
        Redis: async () => undefined,
      },
      probeEveryMs: 50,
      reportEveryMs: 200,
    });
    try {
      const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
        code: 'ECONNREFUSED',
      });
      for (let i = 0; i < 5; i++)
        outages.note(new StorageError('unavailable', 'The database cannot be reached', { cause }));
      outages.note(new Error('a bug, not an outage'));
      await eventually(
        () => captured.entries().some((e) => e.level === 'warn'),
        2000,
        'a periodic report',
      );
      const [first, report] = captured.entries();
      expect(first).toMatchObject({
        level: 'error',
        dependency: 'Database',
        cause: 'connect ECONNREFUSED 127.0.0.1:1',
      });
      expect(report).toMatchObject({
        level: 'warn',
        msg: 'Database still unavailable',
        failedRequests: 5,
      });
      up = true;
      await eventually(() => !outages.isDown('Database'), 2000, 'recovery');
      expect(captured.entries().at(-1)).toMatchObject({
        level: 'info',
        dependency: 'Database',
        failedRequests: 5,
      });
    } finally {
      outages.close();
    }
  });
});
