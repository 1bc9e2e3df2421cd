/**
 * Linking an existing hub user to the provider's identity, never by name: an administrator either
 * names the person's subject (seen in `sso links`, or in the `sso.signed_in` and `sso.refused`
 * audit events), or hands the user a one-time link (`hbl_` code, sha256 kept) whose next sign-in
 * links the account it was made for. A user has at most one link and an identity links one user;
 * a conflict is refused, never resolved by moving a link silently. Links made and removed are
 * audited. Shared by the admin API, the CLI and the callback.
 */
import type { AuditInput, AuditSink } from '../../kernel/audit.ts';
import type { Clock } from '../../kernel/clock.ts';
import { conflict } from '../../kernel/errors.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import { base64url, newId, sha256Hex } from '../../kernel/identity/secrets.ts';
import { usersTable, type UserRow } from '../../kernel/identity/tables.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import {
  ssoLinkCodesTable,
  ssoLinksTable,
  type SsoLinkCodeRow,
  type SsoLinkRow,
} from './tables.ts';

/** Most hours a link code lasts (a week); 24 by default. */
export const MAX_LINK_HOURS = 168;
export const DEFAULT_LINK_HOURS = 24;

/** Why a link code no longer works, as the person reads it. */
export const LINK_NOT_VALID =
  'This link is not valid any more: it was used, replaced by a newer one, or it expired. Ask the hub administrator for a new one.';

/** The shape of a code (`hbl_` and 43 base64url characters), checked before any lookup. */
export const isLinkCode = (text: string) => /^hbl_[A-Za-z0-9_-]{43}$/.test(text);

const linkedEvent = (
  user: UserRow,
  link: SsoLinkRow,
  via: 'subject' | 'link code',
): AuditInput => ({
  action: 'sso.linked',
  target: { kind: 'user', id: user.id, name: user.name },
  details: { issuer: link.issuer, subject: link.subject, via },
});

const unlinkedEvent = (user: UserRow | null, link: SsoLinkRow): AuditInput => ({
  action: 'sso.unlinked',
  target: { kind: 'user', id: link.userId, name: user?.name ?? '' },
  details: { issuer: link.issuer, subject: link.subject },
});

interface LinkingDeps {
  identity: Identity;
  audit: AuditSink;
  clock: Clock;
}

/** Refuses a user who is linked already, or an identity linked to another user. */
async function assertFree(
  deps: LinkingDeps,
  tx: Store,
  user: UserRow,
  identity?: { issuer: string; subject: string },
) {
  const links = tx.table(ssoLinksTable);
  const mine = await links.findOne({ userId: user.id });
  if (mine && (!identity || mine.issuer !== identity.issuer || mine.subject !== identity.subject))
    throw conflict(
      `User "${user.name}" is linked to the identity provider already (subject ${mine.subject}); unlink it first.`,
    );
  const theirs = identity ? await links.findOne(identity) : null;
  if (theirs && theirs.userId !== user.id) {
    const other = await deps.identity.users.findByIdOrName(tx, theirs.userId).catch(() => null);
    throw conflict(
      `The subject ${theirs.subject} is linked to another user${other ? ` ("${other.name}")` : ''}; unlink that user first.`,
    );
  }
  return mine;
}

/** Inserts the link (the caller checked both sides are free) and records it. */
async function insertLink(
  deps: LinkingDeps,
  tx: Store,
  user: UserRow,
  identity: { issuer: string; subject: string },
  via: 'subject' | 'link code',
): Promise<SsoLinkRow> {
  const now = deps.clock.iso();
  // No sign-in yet: "last sign-in" starts at the link's creation.
  const link: SsoLinkRow = {
    id: newId(),
    ...identity,
    userId: user.id,
    createdAt: now,
    lastSignInAt: now,
  };
  await tx.table(ssoLinksTable).insert(link);
  await deps.audit.record(tx, linkedEvent(user, link, via));
  return link;
}

export function createLinkingService(deps: LinkingDeps) {
  return {
    /**
     * Links the user to the person with this issuer and subject (409 on a conflict); `created` is
     * false when the user was linked to that very person already (nothing changes then).
     */
    link(
      store: Store,
      userId: string,
      identity: { issuer: string; subject: string },
    ): Promise<{ link: SsoLinkRow; created: boolean }> {
      return store.transaction(async (tx) => {
        const user = await deps.identity.users.lockHuman(tx, userId);
        const existing = await assertFree(deps, tx, user, identity);
        if (existing) return { link: existing, created: false };
        return { link: await insertLink(deps, tx, user, identity, 'subject'), created: true };
      });
    },

    /**
     * A one-time code whose next sign-in links the user (409 when linked already); an earlier
     * code of the user stops working. The code is returned once.
     */
    issueCode(store: Store, userId: string, hours: number) {
      return store.transaction(async (tx) => {
        const user = await deps.identity.users.lockHuman(tx, userId);
        await assertFree(deps, tx, user);
        const now = deps.clock.now();
        const codes = tx.table(ssoLinkCodesTable);
        await codes.deleteWhere({ userId: user.id });
        const code = `hbl_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
        const row: SsoLinkCodeRow = {
          id: newId(),
          codeHash: sha256Hex(code),
          userId: user.id,
          expiresAt: new Date(now.getTime() + hours * 3_600_000).toISOString(),
          createdAt: now.toISOString(),
        };
        await codes.insert(row);
        await deps.audit.record(tx, {
          action: 'sso.link_code_created',
          target: { kind: 'user', id: user.id, name: user.name },
          details: { expiresAt: row.expiresAt },
        });
        return { user, code, expiresAt: row.expiresAt };
      });
    },

    /**
     * Removes the user's link, audited (the account stays; the person's next sign-in makes a new
     * one); false when there was none.
     */
    unlink(store: Store, userId: string): Promise<boolean> {
      return store.transaction(async (tx) => {
        const link = await tx.table(ssoLinksTable).findOne({ userId });
        const user = link ? await tx.table(usersTable).get(userId) : null;
        if (!link || !(await tx.table(ssoLinksTable).delete(link.id))) return false;
        await deps.audit.record(tx, unlinkedEvent(user, link));
        return true;
      });
    },

    /** The user a code of this sha256 links, while the code is usable; else null. */
    async userOfCode(store: Store, codeHash: string): Promise<UserRow | null> {
      const row = await store.table(ssoLinkCodesTable).findOne({ codeHash });
      if (!row || row.expiresAt <= deps.clock.iso()) return null;
      return deps.identity.users.findByIdOrName(store, row.userId).catch(() => null);
    },

    /**
     * Spends the code: links its user to the identity that just signed in. Null when the code is
     * no longer usable (used, replaced, expired, or its user gone); 409 on a conflict.
     */
    redeemCode(store: Store, codeHash: string, identity: { issuer: string; subject: string }) {
      return store.transaction(async (tx): Promise<SsoLinkRow | null> => {
        const row = await tx.table(ssoLinkCodesTable).findOne({ codeHash });
        if (!row || row.expiresAt <= deps.clock.iso()) return null;
        const user = await deps.identity.users.lockHuman(tx, row.userId).catch(() => null);
        if (!user) return null;
        const existing = await assertFree(deps, tx, user, identity);
        if (!(await tx.table(ssoLinkCodesTable).delete(row.id))) return null;
        return existing ?? insertLink(deps, tx, user, identity, 'link code');
      });
    },
  };
}

export type LinkingService = ReturnType<typeof createLinkingService>;
