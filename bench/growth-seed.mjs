/**
 * Seeding for bench/growth.mjs: one hub's database filled at a given multiple of a base size, fast.
 * One row of each kind is created through the API of an in-process hub (so it passes every rule),
 * then copied with new ids through the storage layer (`insertMany`); accounts and tokens go through
 * the identity service. The modules come from the checkout under test (`hubDir`), so a baseline
 * checkout seeds its own schema.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Rows per `insertMany` call. */
const CHUNK = 1000;

/** What one multiple of the base holds; sizes scale linearly, fixtures measured stay the same. */
export function sizes(multiple) {
  const n = (base) => Math.max(1, Math.round(base * multiple));
  return {
    collections: n(50),
    users: n(20),
    /** Requests spread over the other collections. */
    requests: n(300),
    bigFolder: n(200),
    comments: n(200),
    /** Notices about a collection the feed reader can no longer open. */
    hiddenNotices: n(20),
    /** Notices of other users, so the table grows too. */
    otherNotices: n(200),
  };
}

async function insertAll(table, rows) {
  for (let i = 0; i < rows.length; i += CHUNK) await table.insertMany(rows.slice(i, i + CHUNK));
}

/**
 * Fills the database `db` (a `db` config section) at `multiple`; resolves with the tokens and ids
 * the measured requests use.
 */
export async function seed(hubDir, db, multiple) {
  const load = (path) => import(pathToFileURL(join(hubDir, path)).href);
  const { validateConfig } = await load('kernel/config/load.ts');
  const { createHub } = await load('kernel/hub.ts');
  const { silentLogger } = await load('kernel/log.ts');
  const { createDriver } = await load('kernel/storage/create-driver.ts');
  const { createMemoryThrottleStore } = await load('kernel/throttle/memory.ts');
  const { plugins } = await load('plugins/index.ts');
  const entities = await load('plugins/entities/tables.ts');
  const { commentsTable } = await load('plugins/discussions/tables.ts');
  const { noticesTable } = await load('plugins/notices/tables.ts');
  const sections = Object.fromEntries(
    plugins.filter((p) => p.config).map((p) => [p.config.section, p.config.schema]),
  );
  const config = validateConfig({ logging: { level: 'silent' }, db }, sections, {});
  const driver = await createDriver(db);
  const hub = await createHub({
    config,
    plugins,
    driver,
    throttle: createMemoryThrottleStore(),
    log: silentLogger,
    migrate: true,
  });
  const size = sizes(multiple);
  const store = driver.forTenant('__default__');
  const { users, tokens } = hub.identity;
  try {
    const admin = await users.create(store, { name: 'bench-admin', role: 'admin' });
    const adminToken = (await tokens.issue(store, admin, 'bench')).secret;
    const call = async (method, path, body) => {
      const res = await hub.app.request(path, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300)
        throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const table = (t) => store.table(t);
    const copies = async (t, prototypeId, count, patch) => {
      const prototype = await table(t).get(prototypeId);
      const rows = Array.from({ length: count }, (_, i) => ({
        ...prototype,
        id: crypto.randomUUID(),
        ...patch(i),
      }));
      await insertAll(table(t), rows);
      return rows;
    };

    // Collections: the measured ones through the API, the rest copied.
    const small = await call('POST', '/collections', { name: 'Small' });
    const folders = await call('POST', '/collections', { name: 'Folders' });
    const lost = await call('POST', '/collections', { name: 'Lost' });
    const others = await copies(entities.collectionsTable, small.id, size.collections, (i) => ({
      name: `Collection ${i}`,
    }));
    const smallFolder = await call('POST', `/collections/${folders.id}/folders`, { name: 'S' });
    const bigFolder = await call('POST', `/collections/${folders.id}/folders`, { name: 'B' });

    // Requests: 20 in the small collection and the small folder, the big folder grows.
    const first = await call('POST', `/collections/${small.id}/requests`, { name: 'Request 0' });
    await copies(entities.requestsTable, first.id, 19, (i) => ({
      name: `Request ${i + 1}`,
      sortOrder: i + 1,
    }));
    const inFolder = (folder, count) =>
      copies(entities.requestsTable, first.id, count, (i) => ({
        collectionId: folders.id,
        folderId: folder.id,
        name: `Item ${i}`,
        sortOrder: i,
      }));
    await inFolder(smallFolder, 20);
    await inFolder(bigFolder, size.bigFolder);
    const spread = await copies(entities.requestsTable, first.id, size.requests, (i) => ({
      collectionId: others[i % others.length].id,
      name: `Spread ${i}`,
      sortOrder: Math.floor(i / others.length),
    }));

    // Accounts: a scoped user with 5 collections among all of them, a feed reader, and the rest.
    const scoped = await users.create(store, {
      name: 'bench-scoped',
      role: 'user',
      collectionAccess: [small.id, ...others.slice(0, 4).map((c) => c.id)],
    });
    const reader = await users.create(store, {
      name: 'bench-reader',
      role: 'user',
      collectionAccess: [small.id],
    });
    const rest = [];
    for (let i = 0; i < size.users; i++)
      rest.push(
        await users.create(store, {
          name: `bench-user-${i}`,
          role: 'user',
          collectionAccess: [others[i % others.length].id],
        }),
      );

    // Comments: a page on the discussed request, and more spread over requests.
    const comment = await call('POST', `/requests/${first.id}/discussions`, { body: 'First' });
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    const at = (ms) => new Date(t0 + ms).toISOString();
    const asRoot = (id, extra) => ({ id, rootCommentId: id, ...extra });
    const commentRows = Array.from({ length: 30 + size.comments }, (_, i) => {
      const id = crypto.randomUUID();
      const target = i < 30 ? first.id : spread[i % spread.length].id;
      return asRoot(id, { entityId: target, body: `Comment ${i}`, createdAt: at(i) });
    });
    const proto = await table(commentsTable).get(comment.id);
    await insertAll(
      table(commentsTable),
      commentRows.map((row) => ({ ...proto, ...row, updatedAt: row.createdAt })),
    );

    // Notices: 20 the reader sees, newer ones about the collection they lost, others' notices.
    const notice = (recipient, collectionId, ms) => ({
      id: crypto.randomUUID(),
      recipientUserId: recipient.id,
      eventType: 'discussion.mention',
      entityType: 'collection',
      entityId: collectionId,
      requestId: null,
      collectionId,
      folderId: null,
      runResultId: null,
      discussionThreadId: null,
      discussionCommentId: null,
      actorUserId: admin.id,
      displayMetadata: { actorName: 'bench-admin', targetLabel: 'Collection' },
      createdAt: at(ms),
      readAt: null,
    });
    await insertAll(table(noticesTable), [
      ...Array.from({ length: 20 }, (_, i) => notice(reader, small.id, i)),
      ...Array.from({ length: size.hiddenNotices }, (_, i) => notice(reader, lost.id, 1000 + i)),
      ...Array.from({ length: size.otherNotices }, (_, i) =>
        notice(rest[i % rest.length], others[i % others.length].id, i),
      ),
    ]);

    return {
      adminToken,
      scopedToken: (await tokens.issue(store, scoped, 'bench')).secret,
      readerToken: (await tokens.issue(store, reader, 'bench')).secret,
      small: small.id,
      folders: folders.id,
      smallFolder: smallFolder.id,
      bigFolder: bigFolder.id,
      discussed: first.id,
      size,
    };
  } finally {
    await hub.close();
    await driver.close();
  }
}
