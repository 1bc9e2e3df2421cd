/**
 * The change sequence of MySQL and Firestore: a kept value is served from memory after one read of
 * the counters (MySQL: seen by a proxy that records every statement on the wire), a write through
 * another driver on the same database is seen by the very next read, and lookups that arrive
 * together share one read of the counters.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadCache } from '../../kernel/cache.ts';
import type { Migration, StorageDriver } from '../../kernel/storage/contract.ts';
import { createDriver } from '../../kernel/storage/create-driver.ts';
import { runMigrations } from '../../kernel/storage/migrate.ts';
import { col, defineTable } from '../../kernel/storage/table.ts';
import { changeSequenceMigration, kernelMigrations } from '../../kernel/identity/provision.ts';
import { eventually } from '../helpers/async.ts';
import { createTestDatabase, driverAvailable, type TestDatabase } from '../helpers/databases.ts';

const notes = defineTable({ name: 'seq_notes', columns: { id: col.id(), text: col.string() } });
/** A table no lookup asks about until the counters have been read. */
const tags = defineTable({ name: 'seq_tags', columns: { id: col.id(), text: col.string() } });
const migrations: Migration[] = [
  ...kernelMigrations,
  { id: 'test/seq-notes', createTables: [notes, tags] },
  changeSequenceMigration([notes, tags]),
];

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A TCP proxy that records the text of every COM_QUERY a MySQL client sends through it. */
async function recordingProxy(host: string, port: number) {
  const queries: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      // A packet: 3 bytes of length, 1 of sequence, then the command (0x03: a text query).
      if (chunk.length > 5 && chunk[4] === 0x03) queries.push(chunk.subarray(5).toString());
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => (client.destroy(), upstream.destroy()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as net.AddressInfo).port, queries };
}

async function open(config: TestDatabase['config']): Promise<StorageDriver> {
  const driver = await createDriver(config);
  cleanup.push(() => driver.close());
  return driver;
}

async function twoDrivers(kind: 'mysql' | 'firestore') {
  const database = await createTestDatabase(kind);
  cleanup.push(() => database.drop());
  const other = await open(database.config);
  await runMigrations(other, migrations);
  let proxy: Awaited<ReturnType<typeof recordingProxy>> | undefined;
  let config = database.config;
  if (kind === 'mysql') {
    const { host, port } = config as { host: string; port: number };
    proxy = await recordingProxy(host, port);
    config = { ...config, host: '127.0.0.1', port: proxy.port } as typeof config;
  }
  const first = await open(config);
  // The feed counts from its first read of the counters, which the first lookup starts.
  await eventually(() => first.changes.stamp([notes.name]) !== null, 5000, 'the first read');
  const cache = createReadCache(() => 1 << 20);
  const store = first.forTenant('__default__');
  let loads = 0;
  const read = () =>
    cache.read(
      store,
      'notes',
      [notes],
      async () => (loads++, (await store.table(notes).find()).length),
      () => 8,
    );
  const readTags = () =>
    cache.read(
      store,
      'tags',
      [tags],
      async () => (await store.table(tags).find()).length,
      () => 8,
    );
  return { other: other.forTenant('__default__'), read, readTags, loads: () => loads, proxy };
}

for (const kind of ['mysql', 'firestore'] as const) {
  describe.runIf(driverAvailable(kind))(`the change sequence (${kind})`, () => {
    it('serves a kept value from memory, and a write through another driver on the very next read', async () => {
      const { other, read, loads, proxy } = await twoDrivers(kind);
      expect(await read()).toBe(0);
      expect(loads()).toBe(1);
      proxy?.queries.splice(0);
      expect(await read()).toBe(0);
      expect(loads()).toBe(1);
      if (proxy) {
        expect(proxy.queries.filter((q) => q.includes('hub_change_counts'))).toHaveLength(1);
        expect(proxy.queries.filter((q) => q.includes('seq_notes'))).toEqual([]);
      }
      for (let i = 1; i <= 5; i++) {
        await other.table(notes).insert({ id: `n${i}`, text: 'elsewhere' });
        expect(await read()).toBe(i);
        await other.table(notes).update(`n${i}`, { text: 'changed' });
        await read();
        expect(loads()).toBe(2 * i + 1);
      }
    });

    it('sees a write through another driver to a table first asked about after the counters were read', async () => {
      const { other, read, readTags } = await twoDrivers(kind);
      await read();
      expect(await readTags()).toBe(0);
      await other.table(tags).insert({ id: 't1', text: 'elsewhere' });
      expect(await readTags()).toBe(1);
      await other.table(tags).insert({ id: 't2', text: 'elsewhere' });
      expect(await readTags()).toBe(2);
    });

    it('answers lookups that arrive together with one read of the counters', async () => {
      const { read, loads, proxy } = await twoDrivers(kind);
      await read();
      proxy?.queries.splice(0);
      expect(await Promise.all(Array.from({ length: 20 }, read))).toEqual(Array(20).fill(0));
      expect(loads()).toBe(1);
      if (proxy)
        expect(
          proxy.queries.filter((q) => q.includes('hub_change_counts')).length,
        ).toBeLessThanOrEqual(2);
    });
  });
}
