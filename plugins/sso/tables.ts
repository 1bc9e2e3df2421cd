/**
 * The single sign-on plugin's tables: which hub user an identity provider's person is (per
 * tenant), and the sign-ins in progress between `/auth/sso/start` and the callback.
 */
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

/** A hub user linked to a person at an identity provider (issuer and subject). */
export const ssoLinksTable = defineTable({
  name: 'sso_links',
  columns: {
    id: col.id(),
    issuer: col.string(),
    subject: col.string(),
    userId: col.id(),
    createdAt: col.timestamp(),
    lastSignInAt: col.timestamp(),
  },
  unique: [['issuer', 'subject'], ['userId']],
});

/**
 * A sign-in between start and callback. The browser's cookie holds the key, the PKCE verifier
 * and the nonce; the row holds only hashes, so the row alone cannot finish a sign-in, and
 * deleting it on the first callback makes the `state` single-use across every hub instance.
 */
export const ssoLoginsTable = defineTable({
  name: 'sso_logins',
  columns: {
    id: col.id(),
    /** sha256 of the cookie's key. */
    keyHash: col.string(64),
    /** sha256 of the `state` sent to the provider. */
    stateHash: col.string(64),
    expiresAt: col.timestamp(),
  },
  unique: [['keyHash']],
  indexes: [['expiresAt']],
});

export type SsoLinkRow = RowOfTable<typeof ssoLinksTable>;
export type SsoLoginRow = RowOfTable<typeof ssoLoginsTable>;
