/** The notices plugin's migrations, in order. */
import type { Migration } from '../../kernel/storage/contract.ts';
import { resyncNoticeCollections } from './moves.ts';
import { noticesTable, noticeTables } from './tables.ts';

export const noticeMigrations: Migration[] = [
  { id: 'notices/0001-tables', createTables: noticeTables },
  // The unread count walks a user's unread notices in feed order to apply the feed's access filter.
  { id: 'notices/0002-unread-order-index', addIndexes: [noticesTable] },
  // An edited or deleted comment updates the previews of its notices (previews.ts).
  { id: 'notices/0003-comment-index', addIndexes: [noticesTable] },
  // The feed reads only the collections a reader may open, trusting each notice's collection id;
  // requests moved before moves updated their notices get it set to where they are now.
  {
    id: 'notices/0004-feed-scope',
    addIndexes: [noticesTable],
    run: resyncNoticeCollections,
  },
];
