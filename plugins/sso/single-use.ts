/**
 * Single use of a sign-in across every instance: the callback records the sha256 of the sign-in's
 * `state` before it exchanges the code, and a second callback with the same cookie finds the row.
 * Rows are written only for cookies the hub signed (so only after a start) and live as long as
 * such a cookie could; each callback sweeps a page of the expired ones.
 */
import { sha256Hex } from '../../kernel/identity/secrets.ts';
import { isUniqueViolation, type Store } from '../../kernel/storage/contract.ts';
import { ssoUsedStatesTable } from './tables.ts';

/** Expired rows deleted per callback: a bounded statement (Firestore commits at most 500 writes). */
const SWEEP = 100;

/** Records the state as used; false when a callback (on any instance) already did. */
export async function claimState(
  store: Store,
  sign: { state: string; tenant: string; expiresAt: string },
  now: string,
): Promise<boolean> {
  const used = store.table(ssoUsedStatesTable);
  // A cookie is void from its expiry on, so its record is too.
  const expired = await used.find({ where: { expiresAt: { lte: now } }, limit: SWEEP });
  if (expired.length > 0) await used.deleteWhere({ id: { in: expired.map((row) => row.id) } });
  try {
    await used.insert({
      id: sha256Hex(sign.state),
      tenant: sign.tenant,
      expiresAt: sign.expiresAt,
    });
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/** The tenant of the sign-in a callback already used this state for, or null. */
export async function usedStateTenant(
  store: Store,
  state: string,
  now: string,
): Promise<string | null> {
  const row = await store.table(ssoUsedStatesTable).get(sha256Hex(state));
  return row !== null && row.expiresAt > now ? row.tenant : null;
}
