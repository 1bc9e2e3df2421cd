/**
 * Opening the Firestore driver for a `db` section. This folder is imported only when the driver is
 * configured, so SQL hubs never load `@google-cloud/firestore`.
 *
 * Credentials: `keyFilename` (a service-account JSON file), else Application Default Credentials.
 * With `FIRESTORE_EMULATOR_HOST` set, the client talks to that emulator instead (tests, local runs).
 */
import process from 'node:process';
import { Firestore } from '@google-cloud/firestore';
import type { StorageDriver } from '../contract.ts';
import type { FirestoreDbConfig } from '../config.ts';
import { createFirestoreDriver } from './driver.ts';

/** Default of `db.timeoutMillis` for Firestore (see kernel/storage/config.ts). */
export const DEFAULT_FIRESTORE_TIMEOUT_MS = 10_000;

export { compositeIndexes, indexCommands, indexFile, tablesOf } from './indexes.ts';

export function openFirestore(config: FirestoreDbConfig): StorageDriver {
  const db = new Firestore({
    projectId: config.projectId,
    ...(config.keyFilename ? { keyFilename: config.keyFilename } : {}),
    ...(config.databaseId ? { databaseId: config.databaseId } : {}),
    // The emulator needs no credentials; naming the universe keeps the auth library from probing
    // for a GCE metadata server (and warning that there is none) before the first call.
    ...(process.env.FIRESTORE_EMULATOR_HOST ? { universeDomain: 'googleapis.com' } : {}),
  });
  return createFirestoreDriver(db, {
    timeoutMillis: config.timeoutMillis ?? DEFAULT_FIRESTORE_TIMEOUT_MS,
  });
}
