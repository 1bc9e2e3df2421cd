import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import { createLogger } from '../../kernel/log.ts';
import { createMemoryThrottleStore } from '../../kernel/throttle/memory.ts';
import { EMBEDDED_DRIVER } from '../helpers/drivers.ts';
import { accountsPlugin } from '../../plugins/accounts/index.ts';
import { avatarsPlugin } from '../../plugins/avatars/index.ts';
import { useTestDriver, useTestHub, withTestHub, type TestHub } from '../helpers/hub.ts';
import { closedPort } from '../helpers/net.ts';
import { redisSection, REDIS_URL_VAR, requireService } from '../helpers/services.ts';

async function failTimes(t: TestHub, count: number, token: string | null) {
  for (let i = 0; i < count; i++)
    expect((await t.request('GET', '/auth/session', { token })).status).toBe(401);
}

describe('failed-authentication throttling', () => {
  const db = useTestDriver(EMBEDDED_DRIVER);

  describe('with the in-process store', () => {
    const throttle = createMemoryThrottleStore();
    const t = useTestHub(db, {
      plugins: [avatarsPlugin, accountsPlugin],
      throttle,
      config: { redis: { maxFailures: 3, blockSeconds: 120, maxFailuresPerIp: 8 } },
      ip: '198.51.100.7',
    });

    it('blocks a repeated bad token with 429 and Retry-After once the limit is reached', async () => {
      await failTimes(t, 3, 'hbk_wrong-token-a');
      const res = await t.request('GET', '/auth/session', { token: 'hbk_wrong-token-a' });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'Too Many Requests', code: 'rate_limited' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(100);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(120);
    });

    it('counts requests without a token under their own key', async () => {
      await failTimes(t, 3, null);
      expect((await t.request('GET', '/auth/session', { token: null })).status).toBe(429);
      // A valid token from the same address is a different key.
      expect((await t.request('GET', '/auth/session')).status).toBe(200);
    });

    it('clears the count of a key when its token succeeds', async () => {
      const user = await t.createUser({});
      const key = `198.51.100.7:${await sha256Hex(user.token)}`;
      const policy = { maxFailures: 3, windowSeconds: 900, blockSeconds: 120 };
      await throttle.recordFailure(key, policy);
      await throttle.recordFailure(key, policy);
      expect((await t.request('GET', '/auth/session', { token: user.token })).status).toBe(200);
      // Had the count survived, this third failure would block the key.
      expect(await throttle.recordFailure(key, policy)).toBe(0);
      expect(await throttle.blockedFor(key)).toBe(0);
    });

    it('blocks an address that guesses many different tokens', async () => {
      await withTestHub(
        {
          plugins: [avatarsPlugin, accountsPlugin],
          driver: db.driver,
          throttle: createMemoryThrottleStore(),
          config: { redis: { maxFailures: 3, maxFailuresPerIp: 5 } },
          ip: '192.0.2.55',
        },
        async (guesser) => {
          for (let i = 0; i < 5; i++)
            expect(
              (await guesser.request('GET', '/auth/session', { token: `hbk_guess-${i}` })).status,
            ).toBe(401);
          expect(
            (await guesser.request('GET', '/auth/session', { token: 'hbk_guess-next' })).status,
          ).toBe(429);
          // The address block stops guesses only: a real token from the same address still works.
          expect((await guesser.request('GET', '/auth/session')).status).toBe(200);
          expect(
            (await guesser.request('GET', '/auth/session', { token: 'hbk_guess-after' })).status,
          ).toBe(429);
        },
      );
    });

    it('behind a trusted proxy, keys on the address the proxy appended, not on what the client claims', async () => {
      await withTestHub(
        {
          plugins: [avatarsPlugin, accountsPlugin],
          driver: db.driver,
          throttle: createMemoryThrottleStore(),
          config: { server: { trustProxy: true }, redis: { maxFailures: 3, maxFailuresPerIp: 0 } },
          ip: '10.0.0.2',
        },
        async (proxied) => {
          for (let i = 0; i < 3; i++) {
            const headers = { 'x-forwarded-for': `198.18.0.${i}, 203.0.113.9` };
            expect(
              (await proxied.request('GET', '/auth/session', { token: 'hbk_spoofer', headers }))
                .status,
            ).toBe(401);
          }
          const again = await proxied.request('GET', '/auth/session', {
            token: 'hbk_spoofer',
            headers: { 'x-forwarded-for': '198.18.0.99, 203.0.113.9' },
          });
          expect(again.status).toBe(429);
          const other = await proxied.request('GET', '/auth/session', {
            token: 'hbk_spoofer',
            headers: { 'x-forwarded-for': '203.0.113.10' },
          });
          expect(other.status).toBe(401);
        },
      );
    });

    it('never throttles public routes', async () => {
      for (let i = 0; i < 5; i++)
        expect((await t.request('GET', '/health', { token: 'hbk_wrong-token-a' })).status).toBe(
          200,
        );
    });
  });

  describe.runIf(requireService(REDIS_URL_VAR))('with Redis', () => {
    it('shares counters between two hub instances', async () => {
      const redis = redisSection({ maxFailures: 4, maxFailuresPerIp: 0 });
      const options = {
        plugins: [avatarsPlugin, accountsPlugin],
        driver: db.driver,
        config: { redis },
        ip: '198.51.100.20',
      };
      await withTestHub(options, (a) =>
        withTestHub(options, async (b) => {
          await failTimes(a, 2, 'hbk_shared-bad');
          await failTimes(b, 2, 'hbk_shared-bad');
          const res = await a.request('GET', '/auth/session', { token: 'hbk_shared-bad' });
          expect(res.status).toBe(429);
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(
            (await b.request('GET', '/auth/session', { token: 'hbk_shared-bad' })).status,
          ).toBe(429);
          expect((await b.request('GET', '/auth/session')).status).toBe(200);
        }),
      );
    });

    it('fails closed with 503 when the configured Redis cannot be reached', async () => {
      const redis = redisSection({ port: await closedPort(), connectTimeoutMillis: 300 });
      await withTestHub(
        { plugins: [avatarsPlugin, accountsPlugin], driver: db.driver, config: { redis } },
        async (t) => {
          const valid = await t.request('GET', '/auth/session');
          expect(valid.status).toBe(503);
          expect(valid.body).toEqual({ error: 'Service Unavailable', code: 'service_unavailable' });
          expect((await t.request('GET', '/auth/session', { token: 'hbk_bad' })).status).toBe(503);
          expect((await t.request('GET', '/health', { token: null })).status).toBe(200);
        },
      );
    });
  });
});

describe('requests through a proxy while server.trustProxy is off', () => {
  const db = useTestDriver(EMBEDDED_DRIVER);
  const capture = () => {
    const lines: string[] = [];
    return {
      lines,
      log: createLogger({ level: 'info', format: 'pretty', write: (line) => lines.push(line) }),
    };
  };
  const warnings = (lines: string[]) => lines.filter((line) => line.includes(' WARN '));

  it('logs one warning per hub that every client shares the proxy address, naming server.trustProxy and never the forwarded values', async () => {
    const { lines, log } = capture();
    await withTestHub(
      { plugins: [avatarsPlugin, accountsPlugin], driver: db.driver, log, ip: '127.0.0.1' },
      async (t) => {
        lines.length = 0; // what the hub said while starting
        // A direct request says nothing about a proxy.
        await t.request('GET', '/auth/session', { token: null });
        expect(warnings(lines)).toEqual([]);
        await t.request('GET', '/auth/session', {
          token: null,
          headers: { 'x-forwarded-for': '198.51.100.23\u001b[2J' },
        });
        await t.request('GET', '/healthz', {
          token: null,
          headers: { forwarded: 'for="198.51.100.24"' },
        });
        await t.request('POST', '/auth/invitations/preview', {
          token: null,
          headers: { 'x-forwarded-for': '198.51.100.25' },
          body: { secret: 'hbi_not-a-real-invitation-secret' },
        });
        const [warning, ...more] = warnings(lines);
        expect(more).toEqual([]);
        expect(warning).toContain('X-Forwarded-For');
        expect(warning).toContain('server.trustProxy is off');
        expect(warning).toContain("every client behind the proxy shares the proxy's address");
        expect(warning).toContain('set server.trustProxy: true');
        expect(warning).toContain('peer=127.0.0.1');
        expect(lines.join('\n')).not.toMatch(/198\.51\.100\.2[345]|\u001b/);
      },
    );
  });

  it('stays quiet with server.trustProxy, and warns once when the proxy sends only Forwarded, which the hub does not read', async () => {
    const { lines, log } = capture();
    await withTestHub(
      {
        plugins: [avatarsPlugin, accountsPlugin],
        driver: db.driver,
        log,
        ip: '127.0.0.1',
        config: { server: { trustProxy: true } },
      },
      async (t) => {
        lines.length = 0; // what the hub said while starting
        await t.request('GET', '/auth/session', {
          token: null,
          headers: { 'x-forwarded-for': '198.51.100.23' },
        });
        await t.request('GET', '/auth/session', {
          token: null,
          headers: { 'x-forwarded-for': '198.51.100.23', forwarded: 'for=198.51.100.23' },
        });
        expect(warnings(lines)).toEqual([]);
        for (let i = 0; i < 2; i++)
          await t.request('GET', '/auth/session', {
            token: null,
            headers: { forwarded: 'for=198.51.100.24' },
          });
        const [warning, ...more] = warnings(lines);
        expect(more).toEqual([]);
        expect(warning).toContain('Forwarded header but no X-Forwarded-For');
        expect(warning).toContain('Make the proxy set X-Forwarded-For');
        expect(lines.join('\n')).not.toContain('198.51.100.24');
      },
    );
  });
});
