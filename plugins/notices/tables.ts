/**
 * The tables of the `notices` plugin: each user's notice feed (newest first, by (createdAt, id))
 * and their notification level.
 */
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

export interface NoticeDisplayMetadata {
  actorName: string;
  targetLabel: string;
  method?: string;
  requestName?: string;
  runLabel?: string;
  previewText?: string;
}

export const noticesTable = defineTable({
  name: 'notices',
  columns: {
    id: col.id(),
    recipientUserId: col.id(),
    eventType: col.string(32),
    entityType: col.string(16),
    entityId: col.id(),
    requestId: col.idNullable(),
    collectionId: col.idNullable(),
    folderId: col.idNullable(),
    runResultId: col.idNullable(),
    discussionThreadId: col.idNullable(),
    discussionCommentId: col.idNullable(),
    actorUserId: col.idNullable(),
    displayMetadata: col.json<NoticeDisplayMetadata>(),
    createdAt: col.timestamp(),
    readAt: col.timestampNullable(),
  },
  indexes: [
    ['recipientUserId', 'createdAt', 'id'],
    ['recipientUserId', 'readAt'],
    ['recipientUserId', 'readAt', 'createdAt', 'id'],
    ['discussionCommentId'],
    // The feed's scope (feed-scope.ts): a limited reader's notices per collection, in feed order,
    // all of them and the unread ones; their run-result notices; a moved request's notices.
    ['recipientUserId', 'collectionId', 'createdAt', 'id'],
    ['recipientUserId', 'collectionId', 'readAt', 'createdAt', 'id'],
    ['recipientUserId', 'entityType', 'createdAt', 'id'],
    ['entityId'],
  ],
});

export const NOTIFICATION_LEVELS = ['all', 'mentions', 'none'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

export const notificationSettingsTable = defineTable({
  name: 'user_notification_settings',
  columns: {
    /** The user id: one row per user. */
    id: col.id(),
    level: col.string(16),
    updatedAt: col.timestamp(),
  },
});

export type NoticeRow = RowOfTable<typeof noticesTable>;
export type NotificationSettingsRow = RowOfTable<typeof notificationSettingsTable>;

export const noticeTables = [noticesTable, notificationSettingsTable];
