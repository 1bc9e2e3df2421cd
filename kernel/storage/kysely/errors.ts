/** Driver errors as StorageErrors: SQL text and driver details never reach a client. */
import { StorageError } from '../contract.ts';
import { isConflictError, isOutageError, isUniqueError } from './dialect.ts';

/** Turns driver errors into StorageErrors and throws them; rethrows what is no storage failure. */
export function mapError(error: unknown, table?: string): never {
  if (error instanceof StorageError || error instanceof TypeError) throw error;
  if (isUniqueError(error))
    throw new StorageError('unique', `Duplicate value in ${table ?? 'a table'}`, {
      ...(table ? { table } : {}),
      cause: error,
    });
  if (isConflictError(error))
    throw new StorageError('conflict', 'The write conflicted with a concurrent transaction', {
      ...(table ? { table } : {}),
      cause: error,
    });
  if (isOutageError(error))
    throw new StorageError('unavailable', 'The database cannot be reached', {
      ...(table ? { table } : {}),
      cause: error,
    });
  throw error;
}

/** mapError as a value: the StorageError, or rethrows what is not a storage failure. */
export function catchStorageError(error: unknown): StorageError {
  try {
    mapError(error);
  } catch (mapped) {
    if (mapped instanceof StorageError) return mapped;
    throw mapped;
  }
}

/** A lock another process kept past every attempt: the database is unavailable for now (503). */
export function busyUnavailable(error: unknown, table?: string): StorageError {
  return new StorageError('unavailable', 'The database is locked by another process', {
    ...(table ? { table } : {}),
    cause: error,
  });
}
