/** Onboarding invitations: one row per issued `hbi_` secret, of which only the sha256 is kept. */
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

export const invitationsTable = defineTable({
  name: 'user_invitations',
  columns: {
    id: col.id(),
    userId: col.id(),
    /** Lower-case hex sha256 of the whole secret; the secret itself is never stored. */
    codeHash: col.string(64),
    /** `hbi_` and the first 8 random characters: enough to tell invitations apart in a list. */
    codePrefix: col.string(16),
    expiresAt: col.timestamp(),
    redeemedAt: col.timestampNullable(),
    revokedAt: col.timestampNullable(),
    createdAt: col.timestamp(),
    /** Days the token it redeems for lasts (single sign-on); null: the token never expires. */
    tokenTtlDays: col.intNullable(),
  },
  unique: [['codeHash']],
  indexes: [['userId'], ['createdAt']],
});

export type InvitationRow = RowOfTable<typeof invitationsTable>;

export type InvitationStatus = 'pending' | 'redeemed' | 'revoked' | 'expired';

/** The invitation record of the admin API and the CLI. */
export interface InvitationRecord {
  id: string;
  userId: string;
  codePrefix: string;
  expiresAt: string;
  redeemedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
  status: InvitationStatus;
}

/** Redeemed wins over revoked, revoked over expired: the first thing that happened to it. */
export function invitationStatus(row: InvitationRow, now: Date): InvitationStatus {
  if (row.redeemedAt) return 'redeemed';
  if (row.revokedAt) return 'revoked';
  return Date.parse(row.expiresAt) <= now.getTime() ? 'expired' : 'pending';
}

export function toInvitationRecord(row: InvitationRow, now: Date): InvitationRecord {
  return {
    id: row.id,
    userId: row.userId,
    codePrefix: row.codePrefix,
    expiresAt: row.expiresAt,
    redeemedAt: row.redeemedAt,
    revokedAt: row.revokedAt,
    createdAt: row.createdAt,
    status: invitationStatus(row, now),
  };
}
