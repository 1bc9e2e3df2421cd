/**
 * What only the SQLite driver has to get right beyond the contract suite: another process holding
 * SQLite's writer lock (waited for, then 503 when it persists, then recovery), plain reads going on
 * while this process has a write transaction open, and what another process commits being seen at
 * once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, type StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { col, defineTable } from '../../kernel/storage/table.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

const notes = defineTable({
  name: 'lite_notes',
  columns: { id: col.id(), body: col.string(), n: col.int() },
});

/**
 * Another process on the same file: `node -e …` with libsql, taking the writer lock (BEGIN
 * IMMEDIATE) or running one statement; it answers on stdout and commits when told.
 */
class OtherProcess {
  private child: ChildProcess;
  private lines: AsyncIterator<string>;

  constructor(path: string) {
    const script = `
      const Database = require('libsql');
      const db = new Database(${JSON.stringify(path)});
      db.exec('PRAGMA busy_timeout = 5000');
      const rl = require('node:readline').createInterface({ input: process.stdin });
      console.log('ready');
      rl.on('line', (line) => {
        try { db.exec(line); console.log('done'); } catch (e) { console.log('error ' + e.code); }
      });
      rl.on('close', () => { db.close(); process.exit(0); });`;
    this.child = spawn(process.execPath, ['-e', script], {
      cwd: process.cwd(),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.lines = createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();
  }

  async next(): Promise<string> {
    return (await this.lines.next()).value as string;
  }

  /** Runs one SQL statement in the other process and waits for its answer. */
  async exec(statement: string): Promise<string> {
    this.child.stdin!.write(`${statement}\n`);
    return this.next();
  }

  async end(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    await exited;
  }
}

describe('the SQLite driver with another process on the same file', () => {
  let database: TestDatabase;
  let driver: StorageDriver;
  let path: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    path = (database.config as { path: string }).path;
    driver = await createDriver(database.config);
    await driver.applyMigration({ id: 'sqlite-test/0001', createTables: [notes] });
  });
  afterAll(async () => {
    await driver?.close();
    await database?.drop();
  });

  it('waits while another process holds the writer lock, and the write lands once it commits', async () => {
    const other = new OtherProcess(path);
    try {
      expect(await other.next()).toBe('ready');
      expect(await other.exec('BEGIN IMMEDIATE')).toBe('done');
      let landed = false;
      const insert = driver
        .forTenant('t')
        .table(notes)
        .insert({ id: 'waited', body: 'x', n: 1 })
        .then(() => (landed = true));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(landed).toBe(false);
      expect(await other.exec('COMMIT')).toBe('done');
      await insert;
      expect(await driver.forTenant('t').table(notes).get('waited')).toMatchObject({
        body: 'x',
        n: 1,
      });
    } finally {
      await other.end();
    }
  }, 30_000);

  it('lets a migration wait out a writer lock held longer than a request waits, then applies it', async () => {
    const other = new OtherProcess(path);
    try {
      expect(await other.next()).toBe('ready');
      expect(await other.exec('BEGIN IMMEDIATE')).toBe('done');
      const later = defineTable({ name: 'lite_later', columns: { id: col.id() } });
      let applied = false;
      const migration = driver
        .applyMigration({ id: 'sqlite-test/0002', createTables: [later] })
        .then(() => (applied = true));
      // A request's statement gives up after about 2 s (a 503); a migration keeps waiting.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(applied).toBe(false);
      expect(await other.exec('COMMIT')).toBe('done');
      await migration;
      expect(await driver.appliedMigrations()).toContain('sqlite-test/0002');
      await driver.forTenant('t').table(later).insert({ id: 'x' });
    } finally {
      await other.end();
    }
  }, 30_000);

  it("keeps the event loop turning while a write waits for another process's lock", async () => {
    const other = new OtherProcess(path);
    try {
      expect(await other.next()).toBe('ready');
      expect(await other.exec('BEGIN IMMEDIATE')).toBe('done');
      const insert = driver.forTenant('t').table(notes).insert({ id: 'turning', body: 'x', n: 1 });
      // Sample the loop while the write waits: a wait inside the library's synchronous call would
      // show as one long gap between ticks.
      let longest = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 5);
      await new Promise((resolve) => setTimeout(resolve, 600));
      clearInterval(timer);
      expect(longest).toBeLessThan(200);
      expect(await other.exec('COMMIT')).toBe('done');
      await insert;
    } finally {
      await other.end();
    }
  }, 30_000);

  it('answers 503 while another process keeps the writer lock, and serves writes again once it lets go', async () => {
    const hub: TestHub = await startTestHub({ driver });
    const other = new OtherProcess(path);
    try {
      expect(await other.next()).toBe('ready');
      expect(await other.exec('BEGIN IMMEDIATE')).toBe('done');
      const blocked = await hub.request('POST', '/collections', { body: { name: 'while locked' } });
      expect(blocked.status).toBe(503);
      expect(blocked.body).toEqual({ error: 'Service Unavailable', code: 'service_unavailable' });
      // Reads do not need the writer lock (WAL).
      expect((await hub.request('GET', '/collections')).status).toBe(200);
      expect(await other.exec('COMMIT')).toBe('done');
      const created = await hub.request('POST', '/collections', { body: { name: 'after unlock' } });
      expect(created.status).toBe(200);
      const listed = await hub.request('GET', '/collections');
      const names = listed.body.collections.map((c: { name: string }) => c.name);
      expect(names).toContain('after unlock');
      expect(names).not.toContain('while locked');
    } finally {
      await other.end();
      await hub.close();
    }
  }, 60_000);

  it('sees a row another process commits on its very next read', async () => {
    const other = new OtherProcess(path);
    try {
      expect(await other.next()).toBe('ready');
      expect(await driver.forTenant('t').table(notes).get('from-other')).toBeNull();
      expect(
        await other.exec(
          "INSERT INTO lite_notes (id, tenant_id, body, n) VALUES ('from-other', 't', 'hi', 7)",
        ),
      ).toBe('done');
      expect(await driver.forTenant('t').table(notes).get('from-other')).toMatchObject({
        body: 'hi',
        n: 7,
      });
    } finally {
      await other.end();
    }
  }, 30_000);

  it("commits transactions again after a lone write gave up on another process's lock", async () => {
    const store = driver.forTenant('t');
    await store.table(notes).insert({ id: 'gave-up', body: 'before', n: 0 });
    const other = new OtherProcess(path);
    try {
      expect(await other.next()).toBe('ready');
      expect(await other.exec('BEGIN IMMEDIATE')).toBe('done');
      // A write outside a transaction (as recording a token's use is) meets the lock until it gives up.
      const error = await store
        .table(notes)
        .update('gave-up', { n: 1 })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'unavailable' });
      expect(await other.exec('COMMIT')).toBe('done');
    } finally {
      await other.end();
    }
    // The statement that met the lock must not keep the connection from committing.
    await store.transaction(async (tx) => {
      await tx.table(notes).insert({ id: 'after-give-up', body: 'x', n: 2 });
    });
    expect(await store.table(notes).get('after-give-up')).toMatchObject({ n: 2 });
    expect(await store.table(notes).get('gave-up')).toMatchObject({ n: 0 });
  }, 30_000);

  it('serves plain reads while a write transaction of this process is open, from the last commit', async () => {
    const store = driver.forTenant('t');
    await store.table(notes).insert({ id: 'read-during', body: 'before', n: 0 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const transaction = store.transaction(async (tx) => {
      await tx.table(notes).update('read-during', { body: 'inside' });
      written();
      await gate;
    });
    await wrote;
    const seen = await Promise.race([
      store.table(notes).get('read-during'),
      new Promise((resolve) => setTimeout(resolve, 5_000, 'blocked')),
    ]);
    expect(seen).toMatchObject({ body: 'before' });
    release();
    await transaction;
    expect(await store.table(notes).get('read-during')).toMatchObject({ body: 'inside' });
  }, 30_000);

  it('runs concurrent write transactions of one process one after another, each from fresh reads', async () => {
    const store = driver.forTenant('t');
    await store.table(notes).insert({ id: 'counter', body: '', n: 0 });
    await Promise.all(
      Array.from({ length: 25 }, () =>
        store.transaction(async (tx) => {
          const row = await tx.table(notes).getForUpdate('counter');
          await new Promise((resolve) => setTimeout(resolve, 1));
          await tx.table(notes).update('counter', { n: row!.n + 1 });
        }),
      ),
    );
    expect((await store.table(notes).get('counter'))!.n).toBe(25);
  }, 30_000);

  it('maps a write on a closed database to unavailable, not to a raw error', async () => {
    const other = await createDriver(database.config);
    await other.close();
    const error = await other
      .forTenant('t')
      .table(notes)
      .insert({ id: 'closed', body: '', n: 0 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('unavailable');
  });
});
