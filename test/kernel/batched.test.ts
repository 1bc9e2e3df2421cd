/**
 * The shared proof of the read cache (`kernel/storage/batched.ts`): one check for every caller
 * that arrived before it started, and for a caller that names its arrival, a check that started
 * after that arrival answers it at once — never one that started before.
 */
import { describe, expect, it } from 'vitest';
import { arrivalMark, batched } from '../../kernel/storage/batched.ts';

function counted(inFlight?: number) {
  let checks = 0;
  const release: Array<(ok: boolean) => void> = [];
  const proof = batched(
    () =>
      new Promise<boolean>((resolve) => {
        checks++;
        release.push(resolve);
      }),
    inFlight,
  );
  const settle = async (ok = true) => {
    while (release.length === 0) await new Promise((r) => setTimeout(r, 0));
    release.shift()!(ok);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { proof, settle, checks: () => checks, running: () => release.length };
}

describe('batched proofs', () => {
  it('answers callers of one turn with one check, and a later caller with a new one', async () => {
    const c = counted();
    const first = [c.proof(), c.proof(), c.proof()];
    await c.settle();
    expect(await Promise.all(first)).toEqual([true, true, true]);
    const later = c.proof();
    await c.settle();
    expect(await later).toBe(true);
    expect(c.checks()).toBe(2);
  });

  it('lets a request reuse a check that started after it arrived, for its later lookups', async () => {
    const c = counted();
    const arrival = arrivalMark();
    const token = c.proof(arrival);
    await c.settle();
    expect(await token).toBe(true);
    // The list lookup of the same request: proven already, no second check.
    expect(await c.proof(arrival)).toBe(true);
    expect(c.checks()).toBe(1);
  });

  it('never lets a request use a check that started before it arrived', async () => {
    const c = counted();
    const before = c.proof();
    await new Promise((r) => setTimeout(r, 0)); // the check has started
    const late = c.proof(arrivalMark());
    await c.settle();
    expect(await before).toBe(true);
    // The check that answered `before` began before this request: the request waits for the next.
    await c.settle();
    expect(await late).toBe(true);
    expect(c.checks()).toBe(2);
    // And a request arriving after every check has succeeded needs a check of its own.
    const fresh = c.proof(arrivalMark());
    await c.settle();
    expect(await fresh).toBe(true);
    expect(c.checks()).toBe(3);
  });

  it('does not count a failed check as a proof', async () => {
    const c = counted();
    const arrival = arrivalMark();
    const first = c.proof(arrival);
    await c.settle(false);
    expect(await first).toBe(false);
    const again = c.proof(arrival);
    await c.settle(true);
    expect(await again).toBe(true);
    expect(c.checks()).toBe(2);
  });

  it('starts a later batch while earlier checks run, up to inFlight, and queues one batch beyond', async () => {
    const c = counted(2);
    const tick = () => new Promise((r) => setTimeout(r, 0));
    const first = c.proof(arrivalMark());
    await tick();
    // A second batch need not wait for the first check: that one began before it arrived.
    const second = c.proof(arrivalMark());
    await tick();
    expect(c.running()).toBe(2);
    // A third waits for one of the two to end, and the callers of a fourth join it.
    const third = [c.proof(arrivalMark()), c.proof(arrivalMark())];
    await tick();
    expect(c.running()).toBe(2);
    await c.settle();
    expect(await first).toBe(true);
    expect(c.running()).toBe(2);
    await c.settle();
    await c.settle();
    expect(await second).toBe(true);
    expect(await Promise.all(third)).toEqual([true, true]);
    expect(c.checks()).toBe(3);
  });

  it('runs one check at a time unless told otherwise', async () => {
    const c = counted();
    const first = c.proof();
    await new Promise((r) => setTimeout(r, 0));
    const second = c.proof();
    await new Promise((r) => setTimeout(r, 0));
    expect(c.running()).toBe(1);
    await c.settle();
    await c.settle();
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(c.checks()).toBe(2);
  });

  /** Two callbacks of one turn (as two sockets' data would be), each asking `proof` once. */
  const fromTwoCallbacks = (proof: (arrival?: number) => Promise<boolean>) =>
    new Promise<Promise<boolean>[]>((resolve) => {
      const got: Promise<boolean>[] = [];
      setImmediate(() => got.push(proof(arrivalMark())));
      setImmediate(() => resolve([...got, proof(arrivalMark())]));
    });

  it("with gather 'turn', gives callers from separate callbacks of one turn one check", async () => {
    let checks = 0;
    const proof = batched(async () => (checks++, true), 1, 'turn');
    expect(await Promise.all(await fromTwoCallbacks(proof))).toEqual([true, true]);
    expect(checks).toBe(1);
    // A request of a later turn gets a check of its own.
    expect(await proof(arrivalMark())).toBe(true);
    expect(checks).toBe(2);
  });

  it("with gather 'microtask', gives callers from separate callbacks a check each", async () => {
    let checks = 0;
    const proof = batched(async () => (checks++, true), 1, 'microtask');
    expect(await Promise.all(await fromTwoCallbacks(proof))).toEqual([true, true]);
    expect(checks).toBe(2);
  });
});
