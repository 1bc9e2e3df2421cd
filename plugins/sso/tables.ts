/**
 * The single sign-on plugin's tables: which hub user an identity provider's person is (per
 * tenant), the one-time codes that link an existing user, whom an administrator blocked, and what keeps a sign-in between `/auth/sso/start` and
 * the callback honest without a row per start: the key that signs the browser's cookie and the
 * states already used (both kept in the default tenant, since a cookie names its tenant only
 * once its signature is checked).
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
 * A person an administrator keeps out of this tenant although the provider still admits them:
 * their sign-ins are refused (and audited) until the block is lifted. Keyed by the provider's
 * issuer and subject, so it outlives the user's deletion.
 */
export const ssoBlocksTable = defineTable({
  name: 'sso_blocks',
  columns: {
    id: col.id(),
    issuer: col.string(),
    subject: col.string(),
    /** The hub user's name when the block was made, to recognise the person in lists. */
    name: col.string(),
    createdAt: col.timestamp(),
  },
  unique: [['issuer', 'subject']],
});

/**
 * A one-time link an administrator made so that an existing hub user's next sign-in links their
 * account to the provider's identity (instead of making a new account). Only the sha256 of the
 * code is kept; the row goes when the code is used, when a newer one is made for the user, or with
 * the user.
 */
export const ssoLinkCodesTable = defineTable({
  name: 'sso_link_codes',
  columns: {
    id: col.id(),
    /** sha256 of the `hbl_` code. */
    codeHash: col.string(64),
    userId: col.id(),
    expiresAt: col.timestamp(),
    createdAt: col.timestamp(),
  },
  unique: [['codeHash']],
  // At most one per user (a newer code replaces it), so expired ones need no sweep.
  indexes: [['userId']],
});

/**
 * The key that signs the sign-in cookie: one row (`id` {@link COOKIE_KEY_ID}), made by the first
 * start, so every instance on the database signs and checks with the same key.
 */
export const ssoKeysTable = defineTable({
  name: 'sso_keys',
  columns: {
    id: col.id(),
    /** 32 random bytes, base64url. */
    secret: col.string(64),
    createdAt: col.timestamp(),
  },
  // A key in plain text has no place in an export: the target makes its own at its first start.
  exported: false,
});

export const COOKIE_KEY_ID = 'cookie';

/**
 * The sign-ins whose callback has run, by the sha256 of their `state` (the row's id): a second
 * callback with the same cookie finds its row and is refused, on every instance. A row lives as
 * long as its signed cookie could (10 minutes); each callback sweeps the expired ones.
 */
export const ssoUsedStatesTable = defineTable({
  name: 'sso_used_states',
  columns: {
    id: col.id(),
    /** The sign-in's tenant, so a reloaded result page can point back to its login. */
    tenant: col.string(64),
    expiresAt: col.timestamp(),
  },
  indexes: [['expiresAt']],
  // Read by the callback only, never through a cache.
  changeFeed: false,
  // They guard cookies signed with the key, which is not exported either.
  exported: false,
});

/**
 * The sign-ins in progress of hubs before the signed cookie: a row per start. Kept only so the
 * migration that drops it can name it.
 */
export const retiredSsoLoginsTable = defineTable({
  name: 'sso_logins',
  columns: {
    id: col.id(),
    keyHash: col.string(64),
    stateHash: col.string(64),
    expiresAt: col.timestamp(),
  },
  unique: [['keyHash']],
  indexes: [['expiresAt']],
});

export type SsoLinkRow = RowOfTable<typeof ssoLinksTable>;
export type SsoBlockRow = RowOfTable<typeof ssoBlocksTable>;
export type SsoLinkCodeRow = RowOfTable<typeof ssoLinkCodesTable>;
