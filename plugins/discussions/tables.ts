/**
 * The tables of the `discussions` plugin: comments (threads are their roots) and who watches which
 * thread. Comments are listed per target in (createdAt, id) order, so that pair is indexed and is
 * what the opaque list cursor encodes.
 */
import type { Migration } from '../../kernel/storage/contract.ts';
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

export const commentsTable = defineTable({
  name: 'discussion_comments',
  columns: {
    id: col.id(),
    entityType: col.string(16),
    entityId: col.id(),
    /** Null for a thread root. */
    parentCommentId: col.idNullable(),
    /** The thread root; a root points at itself. */
    rootCommentId: col.id(),
    /** 1 for a root, at most 3: deeper replies are flattened. */
    depth: col.int(),
    /** Plaintext, or the ciphertext on E2EE hubs; empty once tombstoned. */
    body: col.text(),
    bodyFormat: col.string(16),
    /** For encrypted bodies: the `encryptedPayload` fields other than the ciphertext. */
    bodyMetadata: col.jsonNullable<Record<string, unknown>>(),
    /** Null once the author's account is deleted. */
    authorUserId: col.idNullable(),
    createdAt: col.timestamp(),
    updatedAt: col.timestamp(),
    tombstonedAt: col.timestampNullable(),
    tombstonedByUserId: col.idNullable(),
  },
  indexes: [
    ['entityType', 'entityId', 'createdAt', 'id'],
    ['rootCommentId', 'createdAt'],
    ['authorUserId'],
  ],
});

export const subscriptionsTable = defineTable({
  name: 'discussion_thread_subscriptions',
  columns: {
    /** `<userId>:<rootCommentId>`, so subscribing twice is one row. */
    id: col.id(),
    userId: col.id(),
    rootCommentId: col.id(),
    /** The thread's target, so "everyone watching a thread on this entity" is one query. */
    entityType: col.string(16),
    entityId: col.id(),
    createdAt: col.timestamp(),
  },
  indexes: [['rootCommentId'], ['entityType', 'entityId'], ['userId']],
});

export type CommentRow = RowOfTable<typeof commentsTable>;
export type SubscriptionRow = RowOfTable<typeof subscriptionsTable>;

export const discussionTables = [commentsTable, subscriptionsTable];
export const discussionMigrations: Migration[] = [
  { id: 'discussions/0001-tables', createTables: discussionTables },
];

/** The subscription row id of a user on a thread. */
export const subscriptionId = (userId: string, rootCommentId: string) =>
  `${userId}:${rootCommentId}`;
