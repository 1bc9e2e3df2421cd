/**
 * Invitation rules shared by the admin HTTP API, the public preview/redeem routes and the CLI:
 * issue (the secret is returned once), list, revoke, preview and redeem. A redeem claims the
 * invitation with one conditional update inside a transaction, so of two concurrent redeems of
 * one secret exactly one gets a token.
 */
import type { AuditInput, AuditSink } from '../../kernel/audit.ts';
import type { Clock } from '../../kernel/clock.ts';
import { conflict, HttpError, notFound } from '../../kernel/errors.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import { issueSecret, newId, sha256Hex } from '../../kernel/identity/secrets.ts';
import { usersTable, type ApiTokenRow, type UserRow } from '../../kernel/identity/tables.ts';
import type { UserInput, Role } from '../../kernel/identity/users.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { invitationObjection } from './redeem-checks.ts';
import { invitationStatus, invitationsTable, type InvitationRow } from './tables.ts';

/** The one message for every unusable secret, so a guesser learns nothing about which it was. */
export const INVALID_INVITATION = 'Invalid or expired invitation.';
export const DEFAULT_EXPIRES_IN_HOURS = 24;
/** A year: longer lifetimes are almost certainly mistakes, and dates stay far from overflow. */
export const MAX_EXPIRES_IN_HOURS = 8760;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What single sign-on asks of an invitation beyond the admin API's. */
export interface IssueOptions {
  /** The code's lifetime in milliseconds, instead of `expiresInHours`. */
  lifetimeMs?: number;
  /** The redeemed token expires this many days after the redeem. */
  tokenTtlDays?: number;
}

export interface IssuedInvitation {
  user: UserRow;
  invitation: InvitationRow;
  /** The `hbi_` secret: shown once, never stored. */
  secret: string;
}

export interface InvitesDeps {
  identity: Identity;
  clock: Clock;
  /** Where issues, redeems and revocations are recorded, in their own transaction. */
  audit?: AuditSink;
}

/** An invitation's audit event: whom it is for and until when (never its code or hash). */
function invitationEvent(
  action: 'invitation.created' | 'invitation.redeemed' | 'invitation.revoked',
  invitation: InvitationRow,
  user: UserRow | null,
): AuditInput {
  return {
    action,
    target: { kind: 'invitation', id: invitation.id, name: user?.name ?? '' },
    details: { userId: invitation.userId, expiresAt: invitation.expiresAt },
    // Redeeming is done by the invitee, who holds no token yet.
    ...(action === 'invitation.redeemed' && user
      ? { actor: { id: user.id, name: user.name } }
      : {}),
  };
}

/**
 * Revokes every pending invitation of the user, inside the caller's transaction (a block of the
 * person); the number revoked.
 */
export function revokePendingInvitations(tx: Store, userId: string, now: string): Promise<number> {
  return tx
    .table(invitationsTable)
    .updateWhere(
      { userId, redeemedAt: null, revokedAt: null, expiresAt: { gt: now } },
      { revokedAt: now },
    );
}

/** Stores a new invitation for a user the caller has checked. Writes only. */
async function issueIn(
  { clock, audit }: InvitesDeps,
  store: Store,
  user: UserRow,
  expiresInHours: number,
  options: IssueOptions = {},
): Promise<IssuedInvitation> {
  const issued = await issueSecret('hbi');
  const now = clock.now();
  const lifetimeMs = options.lifetimeMs ?? expiresInHours * HOUR_MS;
  const invitation: InvitationRow = {
    id: newId(),
    userId: user.id,
    codeHash: issued.hash,
    codePrefix: issued.prefix,
    expiresAt: new Date(now.getTime() + lifetimeMs).toISOString(),
    redeemedAt: null,
    revokedAt: null,
    createdAt: now.toISOString(),
    tokenTtlDays: options.tokenTtlDays ?? null,
  };
  await store.transaction(async (tx) => {
    await tx.table(invitationsTable).insert(invitation);
    await audit?.record(tx, invitationEvent('invitation.created', invitation, user));
  });
  return { user, invitation, secret: issued.secret };
}

/** The invitation and its user for a secret; 404 unknown (or user gone), 410 no longer usable. */
async function find(
  { identity, clock }: InvitesDeps,
  store: Store,
  secret: string,
): Promise<{ invitation: InvitationRow; user: UserRow }> {
  const invitation = await store
    .table(invitationsTable)
    .findOne({ codeHash: await sha256Hex(secret) });
  const user = invitation ? await store.table(usersTable).get(invitation.userId) : null;
  if (!invitation || !user || user.system) throw notFound(INVALID_INVITATION);
  // Whoever holds the code may learn why it is dead: the /join page tells them what to do.
  const status = invitationStatus(invitation, clock.now());
  if (status !== 'pending')
    throw new HttpError(410, INVALID_INVITATION, { extra: { reason: status } });
  // A code a sign-in showed just before its person was blocked is as withdrawn as one the block
  // revoked (blocks.ts revokes those it finds; this catches one issued while it ran).
  if ((await invitationObjection(identity, store, user)) !== null)
    throw new HttpError(410, INVALID_INVITATION, { extra: { reason: 'revoked' } });
  return { invitation, user };
}

/** The body of `redeem`, inside its transaction: the invitation used up, the token issued. */
async function claim(
  deps: InvitesDeps,
  tx: Store,
  secret: string,
  tokenName: string | undefined,
): Promise<{ token: ApiTokenRow; secret: string }> {
  const { identity, clock, audit } = deps;
  const { invitation } = await find(deps, tx, secret);
  // The invitee's row lock, as user deletion takes it: a redeem that interleaved with the
  // deletion would otherwise commit a token of a user who no longer exists. A user deleted
  // meanwhile reads as the unknown secret it now is.
  const user = await tx.table(usersTable).getForUpdate(invitation.userId);
  if (!user || user.system) throw notFound(INVALID_INVITATION);
  const now = clock.iso();
  // The condition is the claim: a concurrent redeem that committed first leaves nothing to update.
  const claimed = await tx
    .table(invitationsTable)
    .updateWhere(
      { id: invitation.id, redeemedAt: null, revokedAt: null, expiresAt: { gt: now } },
      { redeemedAt: now },
    );
  if (claimed === 0) throw new HttpError(410, INVALID_INVITATION);
  await audit?.record(tx, invitationEvent('invitation.redeemed', invitation, user));
  const expiresAt =
    invitation.tokenTtlDays === null
      ? undefined
      : new Date(Date.parse(now) + invitation.tokenTtlDays * DAY_MS).toISOString();
  return identity.tokens.issue(tx, user, tokenName ?? user.name, undefined, expiresAt);
}

export function createInvitesService(deps: InvitesDeps) {
  const { identity, clock, audit } = deps;
  const issue = (
    store: Store,
    user: UserRow,
    expiresInHours: number,
    options: IssueOptions = {},
  ): Promise<IssuedInvitation> => issueIn(deps, store, user, expiresInHours, options);

  return {
    issue,

    /** Creates an account without any token, and its first invitation, together. */
    createInvitedUser(
      store: Store,
      input: UserInput & { name: string; role: Role },
      expiresInHours: number,
    ): Promise<IssuedInvitation> {
      return store.transaction(async (tx) =>
        issue(tx, await identity.users.create(tx, input), expiresInHours),
      );
    },

    /**
     * A fresh invitation for an existing account; earlier ones stay valid until used or expired.
     * Its token lasts as an administrator's token for the user does by default (a user linked to
     * single sign-on: `sso.tokenTtlDays`), so an invitation is no way around that lifetime.
     */
    reissue(store: Store, userId: string, expiresInHours: number): Promise<IssuedInvitation> {
      // Under the user's row lock, so a deletion running at the same time cannot leave it behind.
      return store.transaction(async (tx) => {
        const user = await identity.users.lockHuman(tx, userId);
        // An invitation nobody could redeem (a blocked person's) is refused, not handed out.
        const objection = await invitationObjection(identity, tx, user);
        if (objection !== null) throw conflict(objection);
        const days = await identity.tokens.defaultDaysFor(tx, user);
        return issue(tx, user, expiresInHours, days === null ? {} : { tokenTtlDays: days });
      });
    },

    /** Every invitation, newest first. */
    list(store: Store): Promise<InvitationRow[]> {
      return store.table(invitationsTable).find({
        orderBy: [
          ['createdAt', 'desc'],
          ['id', 'asc'],
        ],
      });
    },

    /** Revokes a pending, unexpired invitation; null when there is no such invitation. */
    async revoke(store: Store, id: string): Promise<InvitationRow | null> {
      const now = clock.iso();
      return store.transaction(async (tx) => {
        // Read first: Firestore allows no read after a transaction's first write.
        const current = await tx.table(invitationsTable).get(id);
        const user = current ? await tx.table(usersTable).get(current.userId) : null;
        const row = await tx
          .table(invitationsTable)
          .update(
            id,
            { revokedAt: now },
            { redeemedAt: null, revokedAt: null, expiresAt: { gt: now } },
          );
        if (!row) return null;
        await audit?.record(tx, invitationEvent('invitation.revoked', row, user));
        return row;
      });
    },

    /** What the invitee is invited as; does not use the invitation up. */
    preview: (store: Store, secret: string) => find(deps, store, secret),

    /** Claims the invitation and issues a normal `hbk_` token named `tokenName` (default: the user's name). */
    redeem(
      store: Store,
      secret: string,
      tokenName?: string,
    ): Promise<{ token: ApiTokenRow; secret: string }> {
      return store.transaction((tx) => claim(deps, tx, secret, tokenName));
    },
  };
}

export type InvitesService = ReturnType<typeof createInvitesService>;
