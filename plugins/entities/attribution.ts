/** The attribution columns every versioned row carries: who made it and who touched it last. */
import type { UserRow } from '../../kernel/identity/tables.ts';

/** The attribution columns of a write by `user` at `now`. */
export function touched(user: UserRow, now: string) {
  return { updatedAt: now, updatedByUserId: user.id };
}

/** The attribution columns of a row `user` creates at `now` (version 1). */
export function created(user: UserRow, now: string) {
  return {
    createdAt: now,
    updatedAt: now,
    createdByUserId: user.id,
    updatedByUserId: user.id,
    version: 1,
  };
}
