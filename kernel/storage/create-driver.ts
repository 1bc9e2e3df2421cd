/** Builds the storage driver the `db` section asks for. */
import type { StorageDriver } from './contract.ts';
import type { DbConfig } from './config.ts';
import { createKyselyDriver } from './kysely/index.ts';

export async function createDriver(config: DbConfig): Promise<StorageDriver> {
  // Imported only when configured, so SQL hubs never load the Firestore client.
  if (config.driver === 'firestore')
    return (await import('./firestore/index.ts')).openFirestore(config);
  return createKyselyDriver(config);
}
