/**
 * The MLS relay: the hub stores commits and welcomes for devices that are offline and hands them
 * out again, without ever reading them. It keeps each group's epochs a gapless chain: the group's
 * first commit sets its epoch, and every later commit must carry exactly the next one (409
 * otherwise), so no member can push the epoch out of reach or replay an old one. Group ids are
 * stored, compared and returned in their canonical spelling (`thread:<entityType>:<entityId>`),
 * whatever case was sent.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { badRequest, conflict, forbidden, notFound } from '../../kernel/errors.ts';
import type { Clock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { isUniqueViolation, type Store } from '../../kernel/storage/contract.ts';
import { jsonBody, validate } from '../../kernel/http/validate.ts';
import { encodeCursor } from '../../kernel/http/paging.ts';
import { findActiveDevice } from './devices.ts';
import { INVALID_GROUP_ID, requireGroupTarget } from './groups.ts';
import { commitBody, commitsQuery, groupIdSchema, welcomeBody, welcomesQuery } from './schemas.ts';
import {
  deviceKeysTable,
  mlsCommitsTable,
  mlsGroupStateTable,
  mlsWelcomesTable,
  type MlsCommitRow,
  type MlsGroupStateRow,
  type MlsWelcomeRow,
} from './tables.ts';

const SENDER_NOT_ENROLLED = 'Sender device is not enrolled on this Team Hub';
/** Attempts when two first commits of a group race to create its state row. */
const STATE_RACE_RETRIES = 3;

export const toCommitRecord = ({
  id,
  mlsGroupId,
  epoch,
  ciphertext,
  senderDeviceId,
  createdAt,
}: MlsCommitRow) => ({ id, mlsGroupId, epoch, ciphertext, senderDeviceId, createdAt });
export const toGroupStateRecord = ({
  mlsGroupId,
  currentEpoch,
  createdAt,
  updatedAt,
}: MlsGroupStateRow) => ({ mlsGroupId, currentEpoch, createdAt, updatedAt });
export const toWelcomeRecord = ({
  id,
  mlsGroupId,
  recipientDeviceId,
  ciphertext,
  ratchetTree,
  createdAt,
}: MlsWelcomeRow) => ({ id, mlsGroupId, recipientDeviceId, ciphertext, ratchetTree, createdAt });

/** The 409 for a commit whose epoch is not the one after the group's current epoch. */
function epochConflict(epoch: number, currentEpoch: number) {
  const expected = currentEpoch + 1;
  return conflict(
    epoch <= currentEpoch
      ? `A commit for epoch ${epoch} of this MLS group already exists; the next commit must be for epoch ${expected}.`
      : `Epoch ${epoch} skips ahead of this MLS group; the next commit must be for epoch ${expected}.`,
  );
}

/**
 * The highest epoch a group's first commit may carry. MLS groups start at epoch 0, so a real first
 * commit is small; a first commit near the largest storable epoch would leave the group no next
 * epoch, and any member could freeze a new group that way. 2^32 leaves room for 2^53 commits more.
 */
export const FIRST_EPOCH_MAX = 2 ** 32;

/**
 * Stores a commit and moves the group's epoch one step forward, in one transaction. The group's
 * state row is locked before its epoch is compared, so of two commits for the same next epoch one
 * waits for the other and then sees an epoch it must refuse; a refused commit writes nothing. The
 * group's first commit creates the state row; a concurrent first commit fails on a unique key and
 * the route runs it again, when it meets the row like any later commit.
 */
async function storeCommit(store: Store, row: MlsCommitRow, userId: string): Promise<void> {
  await store.transaction(async (tx) => {
    const device = await findActiveDevice(tx, userId, row.senderDeviceId);
    if (!device) throw forbidden(SENDER_NOT_ENROLLED);
    const states = tx.table(mlsGroupStateTable);
    const found = await states.findOne({ mlsGroupId: row.mlsGroupId });
    const state = found && (await states.getForUpdate(found.id));
    if (state && row.epoch !== state.currentEpoch + 1)
      throw epochConflict(row.epoch, state.currentEpoch);
    if (!state && row.epoch > FIRST_EPOCH_MAX)
      throw conflict(
        `Epoch ${row.epoch} is too far ahead for the first commit of this MLS group; a group's first commit carries an epoch of at most ${FIRST_EPOCH_MAX}.`,
      );
    await tx.table(mlsCommitsTable).insert(row);
    if (state) {
      await states.update(state.id, { currentEpoch: row.epoch, updatedAt: row.createdAt });
    } else {
      await states.insert({
        id: newId(),
        mlsGroupId: row.mlsGroupId,
        currentEpoch: row.epoch,
        createdAt: row.createdAt,
        updatedAt: row.createdAt,
      });
    }
    await tx.table(deviceKeysTable).update(device.id, { lastSeenAt: row.createdAt });
  });
}

/** Mounts `/discussion-mls/*` behind the E2EE gate. */
export function relayRoutes(
  app: Hono<KernelEnv>,
  gate: MiddlewareHandler<KernelEnv>,
  clock: Clock,
): void {
  /** The group the caller names, checked against what the caller may see (404 otherwise). */
  const groupOf = (c: Context<KernelEnv>, mlsGroupId: string) =>
    requireGroupTarget(c.get('store'), c.get('auth').user, mlsGroupId);

  app.post('/discussion-mls/commits', gate, jsonBody(commitBody), async (c) => {
    const body = c.req.valid('json');
    const user = c.get('auth').user;
    const { mlsGroupId } = await requireGroupTarget(c.get('store'), user, body.mlsGroupId);
    const row: MlsCommitRow = { id: newId(), ...body, mlsGroupId, createdAt: clock.iso() };
    for (let attempt = 1; ; attempt++) {
      try {
        await storeCommit(c.get('store'), row, user.id);
        break;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // A concurrent first commit of the group got in first (its state row or its commit of
        // the same epoch): run again against what it stored, which answers with the next epoch.
        if (attempt < STATE_RACE_RETRIES) continue;
        if (error.table === mlsCommitsTable.name) {
          throw conflict(`A commit for epoch ${body.epoch} of this MLS group already exists.`);
        }
        throw error;
      }
    }
    return c.json(toCommitRecord(row), 201);
  });

  app.get('/discussion-mls/commits', gate, validate('query', commitsQuery), async (c) => {
    const { cursor, limit, ...query } = c.req.valid('query');
    const { mlsGroupId } = await groupOf(c, query.mlsGroupId);
    // One row more than the page tells whether another page follows.
    const store = c.get('store');
    const rows = await store.table(mlsCommitsTable).find({
      where: { mlsGroupId, ...(cursor !== undefined ? { epoch: { gt: cursor } } : {}) },
      orderBy: [['epoch', 'asc']],
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    return c.json({
      commits: page.map(toCommitRecord),
      ...(more ? { nextCursor: String(page[page.length - 1]!.epoch) } : {}),
    });
  });

  app.post('/discussion-mls/welcomes', gate, jsonBody(welcomeBody), async (c) => {
    const body = c.req.valid('json');
    const { mlsGroupId } = await groupOf(c, body.mlsGroupId);
    const row: MlsWelcomeRow = { id: newId(), ...body, mlsGroupId, createdAt: clock.iso() };
    await c.get('store').table(mlsWelcomesTable).insert(row);
    return c.json(toWelcomeRecord(row), 201);
  });

  app.get('/discussion-mls/welcomes', gate, validate('query', welcomesQuery), async (c) => {
    const { recipientDeviceId, cursor, limit, ...query } = c.req.valid('query');
    const { mlsGroupId } = await groupOf(c, query.mlsGroupId);
    // One row more than the page tells whether another page follows.
    const store = c.get('store');
    const rows = await store.table(mlsWelcomesTable).find({
      where: { mlsGroupId, ...(recipientDeviceId ? { recipientDeviceId } : {}) },
      orderBy: [
        ['createdAt', 'asc'],
        ['id', 'asc'],
      ],
      limit: limit + 1,
      ...(cursor ? { after: cursor } : {}),
    });
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    return c.json({
      welcomes: page.map(toWelcomeRecord),
      ...(more ? { nextCursor: encodeCursor(page[page.length - 1]!) } : {}),
    });
  });

  app.get('/discussion-mls/group-state/:mlsGroupId', gate, async (c) => {
    const parsed = groupIdSchema.safeParse(c.req.param('mlsGroupId'));
    if (!parsed.success) throw badRequest(INVALID_GROUP_ID);
    const { mlsGroupId } = await groupOf(c, parsed.data);
    const state = await c.get('store').table(mlsGroupStateTable).findOne({ mlsGroupId });
    if (!state) throw notFound('MLS group state not found');
    return c.json(toGroupStateRecord(state));
  });
}
