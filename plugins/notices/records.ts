/**
 * Notices as the API returns them. Rows keep only the actor's id and the comment's id; the actor's
 * current name and avatar and the comment's current text are looked up when a notice is read, so
 * a renamed user shows their new name everywhere, and an edited comment its new preview, while a
 * deleted comment shows none (nothing has to be rewritten in every recipient's feed).
 */
import { usersById } from '../../kernel/identity/users.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import type { NoticeDisplayMetadata, NoticeRow } from './tables.ts';
import { userPresentation, type UserPresentation } from '../avatars/index.ts';
import { commentPlaintexts } from '../discussions/index.ts';

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
 * The display metadata with the preview of the comment as it is now: none when the comment was
 * deleted, is encrypted, or the hub is in E2EE mode (no plaintext leaves an E2EE hub). A preview
 * stored in the row by earlier versions is never shown.
 */
function withPreview(
  metadata: NoticeDisplayMetadata,
  plaintext: string | undefined,
): NoticeDisplayMetadata {
  const { previewText: _stored, ...rest } = metadata;
  const preview = plaintext === undefined ? undefined : previewText(plaintext);
  return preview === undefined ? rest : { ...rest, previewText: preview };
}

/**
 * Turns rows into records, loading every distinct actor and comment once. `e2ee` is the hub mode
 * of the current request.
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
  const texts = e2ee
    ? new Map<string, string>()
    : await commentPlaintexts(
        store,
        rows.flatMap((row) => (row.discussionCommentId ? [row.discussionCommentId] : [])),
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
    displayMetadata: withPreview(
      row.displayMetadata,
      row.discussionCommentId ? texts.get(row.discussionCommentId) : undefined,
    ),
  }));
}
