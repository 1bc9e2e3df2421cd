/**
 * Notices as the API returns them. Rows keep only the actor's id; the actor's current name and
 * avatar are looked up when a notice is read, so a renamed user shows their new name everywhere.
 */
import { usersById } from '../../kernel/identity/users.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { NoticeDisplayMetadata, NoticeRow } from './tables.ts';
import { userPresentation, type UserPresentation } from '../avatars/index.ts';

/** Longest preview before it is cut; a cut preview keeps {@link PREVIEW_CUT} characters plus `...`. */
export const PREVIEW_MAX = 120;
const PREVIEW_CUT = 117;

export interface NoticeRecord {
  id: string;
  eventType: string;
  entityType: string;
  entityId: string;
  requestId: string | null;
  collectionId: string | null;
  folderId: string | null;
  runResultId: string | null;
  discussionThreadId: string | null;
  discussionCommentId: string | null;
  actor: UserPresentation;
  createdAt: string;
  readAt: string | null;
  displayMetadata: NoticeDisplayMetadata;
}

/** The comment body as a notice shows it, or undefined when there is no plaintext (E2EE). */
export function previewText(plaintext: string | null): string | undefined {
  if (plaintext === null) return undefined;
  // Cut by code points so an emoji or other astral character is never split in half.
  const chars = [...plaintext.trim()];
  return chars.length > PREVIEW_MAX ? `${chars.slice(0, PREVIEW_CUT).join('')}...` : chars.join('');
}

/**
 * The display metadata with its preview set to this comment text (none for null: a deleted or
 * encrypted comment). Every notice of one comment carries the same metadata (create.ts writes it
 * once per comment), so one result serves them all.
 */
export function withPreview(
  metadata: NoticeDisplayMetadata,
  plaintext: string | null,
): NoticeDisplayMetadata {
  const { previewText: _old, ...rest } = metadata;
  const preview = previewText(plaintext);
  return preview === undefined ? rest : { ...rest, previewText: preview };
}

/**
 * Turns rows into records, loading every distinct actor once. `e2ee` is the hub mode of the
 * current request: an E2EE hub shows no preview, even one stored before E2EE was switched on.
 */
export async function toNoticeRecords(
  store: Store,
  rows: readonly NoticeRow[],
  e2ee: boolean,
): Promise<NoticeRecord[]> {
  const actors = await usersById(
    store,
    rows.map((row) => row.actorUserId),
  );
  return rows.map((row) => ({
    id: row.id,
    eventType: row.eventType,
    entityType: row.entityType,
    entityId: row.entityId,
    requestId: row.requestId,
    collectionId: row.collectionId,
    folderId: row.folderId,
    runResultId: row.runResultId,
    discussionThreadId: row.discussionThreadId,
    discussionCommentId: row.discussionCommentId,
    actor: userPresentation(
      row.actorUserId,
      row.actorUserId ? actors.get(row.actorUserId) : undefined,
      row.displayMetadata.actorName,
    ),
    createdAt: row.createdAt,
    readAt: row.readAt,
    displayMetadata: e2ee ? withPreview(row.displayMetadata, null) : row.displayMetadata,
  }));
}
