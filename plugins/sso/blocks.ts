/**
 * Keeping a person out whom the provider still admits: a block names the provider's issuer and
 * subject in one tenant, so it outlives the user's deletion (which alone lasted only until the
 * person's next sign-in, when a new account was made). A blocked sign-in is refused and audited.
 * Blocking a linked user also revokes that user's tokens and pending invitations (the one-time
 * code a sign-in page still shows among them), so the block takes effect at once, and no
 * invitation of a blocked person redeems later (the check registered in index.ts); the account
 * stays (delete it with `DELETE /admin/users/:id`). Shared by the admin API and the CLI.
 */
import { z } from 'zod';
import type { AuditSink } from '../../kernel/audit.ts';
import type { Clock } from '../../kernel/clock.ts';
import { conflict, notFound } from '../../kernel/errors.ts';
import type { Identity } from '../../kernel/identity/identity.ts';
import { newId } from '../../kernel/identity/secrets.ts';
import { apiTokensTable, usersTable, type UserRow } from '../../kernel/identity/tables.ts';
import { isUniqueViolation, type Store } from '../../kernel/storage/contract.ts';
import { revokePendingInvitations } from '../invites/index.ts';
import { ssoBlocksTable, ssoLinksTable, type SsoBlockRow } from './tables.ts';

export const ssoBlockSchema = z
  .object({
    id: z.string(),
    issuer: z.string(),
    subject: z.string(),
    name: z.string().describe("The linked user's name when the block was made, or empty"),
    createdAt: z.string(),
  })
  .meta({ id: 'SsoBlock' });

export type SsoBlockRecord = z.output<typeof ssoBlockSchema>;

export const toBlockRecord = (row: SsoBlockRow): SsoBlockRecord => ({
  id: row.id,
  issuer: row.issuer,
  subject: row.subject,
  name: row.name,
  createdAt: row.createdAt,
});

/** Whom to block: a linked user, or a person by the provider's subject (and issuer). */
export type BlockTarget = { userId: string } | { subject: string; issuer: string };

export const NOT_LINKED = 'User not found or not linked to the identity provider.';

/** Whether the person is blocked in the tenant of `store`. */
export async function isBlocked(store: Store, issuer: string, subject: string): Promise<boolean> {
  return (await store.table(ssoBlocksTable).findOne({ issuer, subject })) !== null;
}

/**
 * Why this user may get no token through an invitation: the person it is linked to is blocked
 * (said to an admin who would invite them), or null.
 */
export async function blockedUserObjection(store: Store, user: UserRow): Promise<string | null> {
  const link = await store.table(ssoLinksTable).findOne({ userId: user.id });
  if (!link || !(await isBlocked(store, link.issuer, link.subject))) return null;
  return `User "${user.name}" is blocked from signing in (subject ${link.subject}); lift the block first (DELETE /admin/sso/blocks/:id, or workspace-hub sso unblock).`;
}

export function createBlocksService(deps: { identity: Identity; audit: AuditSink; clock: Clock }) {
  return {
    /** Every block of the tenant, oldest first. */
    list(store: Store): Promise<SsoBlockRow[]> {
      return store.table(ssoBlocksTable).find({
        orderBy: [
          ['createdAt', 'asc'],
          ['id', 'asc'],
        ],
      });
    },

    /**
     * Blocks the person (409 when already blocked) and revokes the linked user's tokens and
     * pending invitations.
     */
    async block(store: Store, target: BlockTarget): Promise<SsoBlockRow> {
      const row = await store
        .transaction(async (tx) => {
          // Reads first, then writes (Firestore's transactions ask for that order).
          const link =
            'userId' in target
              ? await tx.table(ssoLinksTable).findOne({ userId: target.userId })
              : await tx.table(ssoLinksTable).findOne(target);
          if ('userId' in target && !link) throw notFound(NOT_LINKED);
          const { issuer, subject } = link ?? (target as { issuer: string; subject: string });
          // The user's row lock, as a redeem takes it: a redeem either finishes first (and its
          // token is revoked below) or finds its invitation revoked.
          const user = link ? await tx.table(usersTable).getForUpdate(link.userId) : null;
          if (await isBlocked(tx, issuer, subject))
            throw conflict('This person is already blocked on this hub.');
          const now = deps.clock.iso();
          const revoked = user
            ? await tx
                .table(apiTokensTable)
                .updateWhere({ userId: user.id, revokedAt: null }, { revokedAt: now })
            : 0;
          const withdrawn = user ? await revokePendingInvitations(tx, user.id, now) : 0;
          const block: SsoBlockRow = {
            id: newId(),
            issuer,
            subject,
            name: user?.name ?? '',
            createdAt: now,
          };
          await tx.table(ssoBlocksTable).insert(block);
          await deps.audit.record(tx, {
            action: 'sso.blocked',
            target: { kind: 'user', id: subject, name: block.name },
            details: {
              issuer,
              userId: user?.id ?? null,
              revokedTokens: revoked,
              revokedInvitations: withdrawn,
            },
          });
          return block;
        })
        .catch((error: unknown) => {
          // Two admins blocking the same person at once: the second finds the first's block.
          if (isUniqueViolation(error))
            throw conflict('This person is already blocked on this hub.');
          throw error;
        });
      deps.identity.tokens.announceRevoked();
      return row;
    },

    /** Lifts a block; false when there is none with this id. */
    async unblock(store: Store, id: string): Promise<boolean> {
      return store.transaction(async (tx) => {
        const row = await tx.table(ssoBlocksTable).get(id);
        if (!row || !(await tx.table(ssoBlocksTable).delete(id))) return false;
        await deps.audit.record(tx, {
          action: 'sso.unblocked',
          target: { kind: 'user', id: row.subject, name: row.name },
          details: { issuer: row.issuer },
        });
        return true;
      });
    },
  };
}

export type BlocksService = ReturnType<typeof createBlocksService>;
