/**
 * Avatar changes shared by the profile route, the admin user update (accounts) and the hub route:
 * initials and colour go through the identity rules, image bytes into the avatars table, and the
 * owning row's `avatarImageUpdatedAt` tells clients (through `?v=`) that the image changed.
 */
import { HttpError, notFound } from '../../kernel/errors.ts';
import {
  tenantsTable,
  usersTable,
  type TenantRow,
  type UserRow,
} from '../../kernel/identity/tables.ts';
import { normalizeColor, normalizeInitials, userAvatarUrl } from '../../kernel/identity/users.ts';
import type { Store } from '../../kernel/storage/contract.ts';
import { parseAvatarImage, type AvatarImage } from './image.ts';
import { col, defineTable, type RowOfTable } from '../../kernel/storage/table.ts';

// Image bytes live in their own table, never in the users or tenants row: those rows are read on
// every authenticated request and must stay small.
export const avatarsTable = defineTable({
  name: 'avatars',
  columns: {
    /** `user:<user id>` for a user's image, `hub` for the tenant's own. */
    id: col.id(),
    mime: col.string(32),
    /** The decoded image as base64 (at most 200 KB decoded). */
    data: col.text(),
    /** Also the `v=` of the image URL and the ETag, so a new image is never served from a cache. */
    updatedAt: col.timestamp(),
  },
});

export type AvatarRow = RowOfTable<typeof avatarsTable>;

/** The row id of a user's image. */
export const userAvatarId = (userId: string) => `user:${userId}`;
/**
 * The row id of a hub (tenant) image. Row ids are unique across tenants on every driver, so the
 * tenant is part of it: a fixed id would let only the first tenant ever store a hub image.
 */
export const hubAvatarId = (tenantId: string) => `hub:${tenantId}`;

/** An avatar change as a body gives it; absent fields stay as they are, a null image clears it. */
export interface AvatarChange {
  initials?: string | undefined;
  color?: string | undefined;
  imageDataUrl?: string | null | undefined;
}

/** Runs an identity rule but reports the body's own field name in the message. */
function asField<T>(field: string, rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    if (error instanceof HttpError)
      throw new HttpError(error.status, error.message.replace(/^\w+: /, `${field}: `));
    throw error;
  }
}

/** Checks every field of a change before anything is written; returns the normalized values. */
export function checkAvatarChange(
  change: AvatarChange,
  fields = { initials: 'initials', color: 'color', image: 'imageDataUrl' },
) {
  return {
    initials:
      change.initials === undefined
        ? undefined
        : asField(fields.initials, () => normalizeInitials(change.initials!)),
    color:
      change.color === undefined
        ? undefined
        : asField(fields.color, () => normalizeColor(change.color!)),
    image: parseImageField(change.imageDataUrl, fields.image),
  };
}

/** `undefined` leaves the image alone, `null` clears it, a string must be a valid image. */
export function parseImageField(
  value: string | null | undefined,
  field = 'imageDataUrl',
): AvatarImage | null | undefined {
  return value === undefined || value === null ? value : parseAvatarImage(value, field);
}

/** Stores or clears the image row `id`; returns the new `avatarImageUpdatedAt`. Writes only. */
async function writeImage(
  tx: Store,
  id: string,
  image: AvatarImage | null,
  now: string,
): Promise<string | null> {
  if (image === null) {
    await tx.table(avatarsTable).delete(id);
    return null;
  }
  await tx.table(avatarsTable).put({ id, mime: image.mime, data: image.base64, updatedAt: now });
  return now;
}

/**
 * Sets or clears a user's image inside the caller's transaction. Only writes, so it may follow
 * other writes of the same transaction (the admin update), as the storage contract asks.
 */
export async function setUserImage(
  tx: Store,
  user: UserRow,
  image: AvatarImage | null,
  now: string,
): Promise<UserRow> {
  const avatarImageUpdatedAt = await writeImage(tx, userAvatarId(user.id), image, now);
  const updated = await tx
    .table(usersTable)
    .update(user.id, { avatarImageUpdatedAt, updatedAt: now });
  if (!updated) throw notFound('User not found');
  return updated;
}

/** Applies a checked change to the user's own avatar in one transaction. */
export function updateUserAvatar(
  store: Store,
  userId: string,
  change: ReturnType<typeof checkAvatarChange>,
  now: string,
): Promise<UserRow> {
  return store.transaction(async (tx) => {
    const current = await tx.table(usersTable).getForUpdate(userId);
    if (!current) throw notFound('User not found');
    const patch: Partial<UserRow> = { updatedAt: now };
    if (change.initials !== undefined) patch.avatarInitials = change.initials;
    if (change.color !== undefined) patch.avatarColor = change.color;
    if (change.image !== undefined)
      patch.avatarImageUpdatedAt = await writeImage(tx, userAvatarId(userId), change.image, now);
    return (await tx.table(usersTable).update(userId, patch))!;
  });
}

/** Applies a checked change to the hub (tenant) avatar in one transaction. */
export function updateHubAvatar(
  store: Store,
  tenantId: string,
  change: ReturnType<typeof checkAvatarChange>,
  now: string,
): Promise<TenantRow> {
  return store.transaction(async (tx) => {
    const current = await tx.table(tenantsTable).getForUpdate(tenantId);
    if (!current) throw notFound('Tenant not found');
    const patch: Partial<TenantRow> = { updatedAt: now };
    if (change.initials !== undefined) patch.avatarInitials = change.initials;
    if (change.color !== undefined) patch.avatarColor = change.color;
    if (change.image !== undefined)
      patch.avatarImageUpdatedAt = await writeImage(tx, hubAvatarId(tenantId), change.image, now);
    return (await tx.table(tenantsTable).update(tenantId, patch))!;
  });
}

/** Removes a deleted user's image (registered as a user-deletion hook). */
export async function deleteUserImage(tx: Store, userId: string): Promise<void> {
  await tx.table(avatarsTable).delete(userAvatarId(userId));
}

/** How a user appears to other users (a comment's author, a notice's actor). */
export interface UserPresentation {
  id: string;
  name: string;
  avatar?: { initials: string; color: string; imageUrl?: string };
}

/**
 * The presentation of `user`, read at answer time so a renamed user or a new avatar shows
 * everywhere; an account that is gone appears as `missingName` (with its id, if known) and no avatar.
 */
export function userPresentation(
  id: string | null,
  user: UserRow | undefined,
  missingName: string,
): UserPresentation {
  if (!user) return { id: id ?? '', name: missingName };
  const imageUrl = userAvatarUrl(user);
  return {
    id: user.id,
    name: user.name,
    avatar: {
      initials: user.avatarInitials,
      color: user.avatarColor,
      ...(imageUrl ? { imageUrl } : {}),
    },
  };
}

/** How the hub presents itself (`hub` of `/auth/session`): its name, initials, colour and image. */
export function hubPresentation(tenant: TenantRow) {
  return {
    name: tenant.name,
    initials: tenant.avatarInitials,
    color: tenant.avatarColor,
    ...(tenant.avatarImageUpdatedAt
      ? { imageUrl: `/auth/hub/avatar?v=${Date.parse(tenant.avatarImageUpdatedAt)}` }
      : {}),
  };
}
