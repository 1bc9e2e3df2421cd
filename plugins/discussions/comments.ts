/**
 * Comment routes: list and create on every kind the entities registry makes a target, reply, edit
 * (author only) and delete (author, or an admin who can access the target), which tombstones the
 * comment so its replies stay attached. Access is always access to the comment's target.
 */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { badRequest, forbidden, notFound } from '../../kernel/errors.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { jsonBody, validate } from '../../kernel/http/validate.ts';
import { listPage, listQuery } from './listing.ts';
import { commentBody, parseBody, type CommentInput } from './payload.ts';
import { COMMENT_NOT_FOUND, loadAuthors, recordOf, toCommentRecord } from './records.ts';
import { commentsTable, type CommentRow } from './tables.ts';
import { usersTable } from '../../kernel/identity/tables.ts';
import { cachedJsonBytes, sendCachedJson, toCachedJson } from '../../kernel/http/cached-json.ts';
import { createComment, requireComment, type DiscussionDeps, type NewComment } from './write.ts';
import { DISCUSSION_COMMENT_CHANGED, type DiscussionCommentChangedEvent } from './events.ts';
import { pathId } from '../../kernel/http/params.ts';
import {
  checkTarget,
  loadTarget,
  requireTarget,
  TARGET_KINDS,
  TARGET_NOT_FOUND,
  targetTables,
} from '../entities/index.ts';

export const REPLY_TO_DELETED = 'Cannot reply to a deleted comment';

/** Tells other plugins, inside the change's transaction, that a comment's text changed. */
const publishChange = (deps: DiscussionDeps, event: DiscussionCommentChangedEvent) =>
  deps.events.publishInTransaction(DISCUSSION_COMMENT_CHANGED, event);

/** Starts a thread on `target`, or replies to `repliedTo`, and answers with the new comment. */
async function addComment(
  c: Context<KernelEnv>,
  deps: DiscussionDeps,
  input: CommentInput,
  target: NewComment['target'],
  repliedTo: CommentRow | null,
) {
  const store = c.get('store');
  const { user } = c.get('auth');
  const e2ee = deps.e2ee();
  const body = await parseBody(store, user, input, e2ee);
  const row = await createComment(deps, {
    store,
    tenantId: c.get('tenant').id,
    user,
    target,
    body,
    repliedTo,
  });
  return c.json(await recordOf(store, row, e2ee), 200);
}

/** Mounts every comment route on `app`. */
export function commentRoutes(app: Hono<KernelEnv>, deps: DiscussionDeps): void {
  for (const { prefix, name: entityType } of TARGET_KINDS) {
    const path = `/${prefix}/:id/discussions`;

    app.get(path, validate('query', listQuery), (c) =>
      listComments(c, deps, entityType, c.req.valid('query')),
    );

    app.post(path, jsonBody(commentBody), async (c) => {
      const store = c.get('store');
      const { user } = c.get('auth');
      const target = await requireTarget(
        store,
        user,
        entityType,
        pathId(c, 'id', TARGET_NOT_FOUND),
      );
      return addComment(c, deps, c.req.valid('json'), target, null);
    });
  }

  app.post('/discussion-comments/:id/replies', jsonBody(commentBody), async (c) => {
    const store = c.get('store');
    const { user } = c.get('auth');
    const { comment, target } = await requireComment(
      store,
      user,
      pathId(c, 'id', COMMENT_NOT_FOUND),
    );
    if (comment.tombstonedAt !== null) throw badRequest(REPLY_TO_DELETED);
    return addComment(c, deps, c.req.valid('json'), target, comment);
  });

  app.put('/discussion-comments/:id', jsonBody(commentBody), (c) =>
    editComment(c, deps, c.req.valid('json')),
  );

  app.delete('/discussion-comments/:id', (c) => deleteComment(c, deps));
}

/** A page of a target's comments, served from the read cache. */
async function listComments(
  c: Context<KernelEnv>,
  deps: DiscussionDeps,
  entityType: (typeof TARGET_KINDS)[number]['name'],
  query: z.output<typeof listQuery>,
) {
  const store = c.get('store');
  const entityId = pathId(c, 'id', TARGET_NOT_FOUND);
  const target = await deps.cache.read(
    store,
    `discussions:target:${store.tenantId}:${entityType}:${entityId}`,
    [targetTables[entityType]],
    () => loadTarget(store, entityType, entityId),
    (found) => (found ? 1024 : null),
  );
  checkTarget(c.get('auth').user, target);
  const { limit, cursor } = query;
  const e2ee = deps.e2ee();
  // One page, serialized once and kept until a comment or a user (an author) changes.
  const answer = await deps.cache.read(
    store,
    `discussions:page:${store.tenantId}:${entityType}:${entityId}:${limit}:${cursor ? `${cursor.createdAt}|${cursor.id}` : ''}:${e2ee}`,
    [commentsTable, usersTable],
    async () => {
      const page = await listPage(store, entityType, entityId, { limit, cursor });
      const authors = await loadAuthors(store, page.rows);
      const comments = page.rows.map((row) => toCommentRecord(row, authors, e2ee));
      return toCachedJson(
        page.nextCursor ? { comments, nextCursor: page.nextCursor } : { comments },
      );
    },
    cachedJsonBytes,
  );
  return sendCachedJson(c, answer);
}

/** Changes a comment's text (its author only). */
async function editComment(c: Context<KernelEnv>, deps: DiscussionDeps, input: CommentInput) {
  const store = c.get('store');
  const { user } = c.get('auth');
  const id = pathId(c, 'id', COMMENT_NOT_FOUND);
  const { comment } = await requireComment(store, user, id);
  if (comment.tombstonedAt !== null) throw notFound(COMMENT_NOT_FOUND);
  if (comment.authorUserId !== user.id) throw forbidden("Only the comment's author can edit it.");
  const e2ee = deps.e2ee();
  const body = await parseBody(store, user, input, e2ee);
  const row = await store.transaction(async (tx) => {
    // Re-read inside the transaction: a delete that landed meanwhile wins over the edit.
    const current = await tx.table(commentsTable).get(id);
    if (!current || current.tombstonedAt !== null) throw notFound(COMMENT_NOT_FOUND);
    // In this transaction: notices' previews change with the text, or neither does.
    await publishChange(deps, {
      tx,
      tenantId: c.get('tenant').id,
      commentId: id,
      plaintext: body.plaintext,
      deleted: false,
    });
    return tx.table(commentsTable).update(id, {
      body: body.body,
      bodyFormat: body.bodyFormat,
      bodyMetadata: body.bodyMetadata,
      updatedAt: deps.clock.iso(),
    });
  });
  if (!row) throw notFound(COMMENT_NOT_FOUND);
  return c.json(await recordOf(store, row, e2ee));
}

/** Tombstones a comment (its author, or an admin who can access its target). */
async function deleteComment(c: Context<KernelEnv>, deps: DiscussionDeps) {
  const store = c.get('store');
  const { user } = c.get('auth');
  const id = pathId(c, 'id', COMMENT_NOT_FOUND);
  const { comment } = await requireComment(store, user, id);
  // Admins reach this point only for targets they can access (requireComment checked it).
  if (comment.authorUserId !== user.id && user.role !== 'admin')
    throw forbidden("Only the comment's author or an admin can delete it.");
  const row = await store.transaction(async (tx) => {
    const current = await tx.table(commentsTable).get(id);
    if (!current) throw notFound(COMMENT_NOT_FOUND);
    // Deleting twice answers the same tombstone: a retried request must not fail.
    if (current.tombstonedAt !== null) return current;
    // In this transaction: the text leaves every notice's preview with the comment, or stays.
    await publishChange(deps, {
      tx,
      tenantId: c.get('tenant').id,
      commentId: id,
      plaintext: null,
      deleted: true,
    });
    const now = deps.clock.iso();
    return tx.table(commentsTable).update(id, {
      body: '',
      bodyMetadata: null,
      tombstonedAt: now,
      tombstonedByUserId: user.id,
      updatedAt: now,
    });
  });
  if (!row) throw notFound(COMMENT_NOT_FOUND);
  return c.json(await recordOf(store, row, deps.e2ee()));
}
