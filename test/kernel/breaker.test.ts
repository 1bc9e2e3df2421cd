/**
 * The circuit breaker (kernel/breaker.ts) on its own — one probe at a time, closed by the first
 * answer, deaf to stalls reported by calls older than that answer — and on the real SQL drivers,
 * where a statement's own failure (a duplicate, a 4xx) must never open it. The stalls themselves
 * are in test/faults (pg-freeze, stall, firestore-stall, redis-stall).
 */
import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from '../../kernel/breaker.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { DEFAULT_TENANT_ID } from '../../kernel/identity/tenants.ts';
import { StorageError } from '../../kernel/storage/contract.ts';
import { eventually, sleep } from '../helpers/async.ts';
import { driverAvailable } from '../helpers/databases.ts';
import { useTestHub } from '../helpers/hub.ts';

describe('the circuit breaker', () => {
  it('probes one at a time while open, again after each failure, and closes on the first answer', async () => {
    let calls = 0;
    let running = 0;
    let most = 0;
    let answer = false;
    const breaker = createCircuitBreaker({
      name: 'database',
      probeEveryMs: 20,
      probe: async () => {
        calls += 1;
        running += 1;
        most = Math.max(most, running);
        await sleep(10);
        running -= 1;
        if (!answer) throw new Error('still stalled');
      },
    });
    try {
      expect(breaker.isOpen()).toBe(false);
      const cause = new Error('no answer within 5000 ms');
      breaker.trip(cause);
      breaker.trip(new Error('a second timeout'));
      expect(breaker.isOpen()).toBe(true);
      await eventually(() => calls >= 3, 2000, 'three probes');
      expect(breaker.isOpen()).toBe(true);
      expect(most).toBe(1);
      answer = true;
      await eventually(() => !breaker.isOpen(), 2000, 'the breaker to close');
      const after = calls;
      await sleep(100);
      expect(calls).toBe(after);
    } finally {
      breaker.dispose();
    }
  });

  it('ignores a stall reported by a call that began before the last probe that was answered', async () => {
    const breaker = createCircuitBreaker({ name: 'redis', probe: async () => undefined });
    try {
      const before = Date.now() - 1000;
      breaker.trip(new Error('timeout'), before);
      await eventually(() => !breaker.isOpen(), 2000, 'the breaker to close');
      // A call from before the recovery times out late: the dependency has answered since.
      breaker.trip(new Error('late timeout'), before);
      expect(breaker.isOpen()).toBe(false);
      breaker.trip(new Error('new timeout'), Date.now());
      expect(breaker.isOpen()).toBe(true);
    } finally {
      breaker.dispose();
    }
  });

  it('stops probing once disposed', async () => {
    let calls = 0;
    const breaker = createCircuitBreaker({
      name: 'database',
      probeEveryMs: 10,
      probe: async () => {
        calls += 1;
        throw new Error('down');
      },
    });
    breaker.trip(new Error('timeout'));
    await eventually(() => calls >= 2, 2000, 'two probes');
    breaker.dispose();
    const after = calls;
    await sleep(100);
    expect(calls).toBe(after);
    expect(breaker.isOpen()).toBe(false);
  });
});

for (const kind of ['postgres', 'mysql'] as const) {
  describe.skipIf(!driverAvailable(kind))(`the database circuit on ${kind}`, () => {
    const t = useTestHub(kind);

    it('stays closed through duplicate keys, a duplicate name answered 400, a missing row and an invalid body', async () => {
      const circuit = t.driver.circuit;
      expect(circuit?.name).toBe('database');
      const store = t.driver.forTenant(DEFAULT_TENANT_ID);
      const admin = await store.table(usersTable).get(t.adminId);
      const duplicate = await store
        .table(usersTable)
        .insert({ ...admin! })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(duplicate).toBeInstanceOf(StorageError);
      expect((duplicate as StorageError).code).toBe('unique');
      const taken = await t.request('POST', '/admin/users', {
        body: { name: (admin as { name: string }).name },
      });
      expect(taken.status).toBe(400);
      expect(taken.body.error).toMatch(/already in use/);
      expect((await t.request('GET', '/collections/c_missing/folders')).status).toBe(404);
      expect((await t.request('POST', '/collections', { body: {} })).status).toBe(400);
      expect(circuit!.isOpen()).toBe(false);
      expect((await t.request('GET', '/readyz', { token: null })).status).toBe(200);
    });
  });
}
