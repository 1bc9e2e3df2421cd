/**
 * Firestore test databases on the official emulator (`HUB_TEST_FIRESTORE_EMULATOR_HOST`, e.g.
 * `127.0.0.1:8790`). Each test database is its own emulator project, so suites never see each
 * other's documents; dropping one clears the project through the emulator's DELETE endpoint.
 */
import type { DbConfig } from '../../kernel/storage/config.ts';

export const FIRESTORE_HOST_VAR = 'HUB_TEST_FIRESTORE_EMULATOR_HOST';

export async function createFirestoreTestDatabase(): Promise<{
  config: DbConfig;
  drop(): Promise<void>;
}> {
  const host = process.env[FIRESTORE_HOST_VAR]!;
  // The client library finds the emulator through this variable, as a developer's hub would.
  process.env.FIRESTORE_EMULATOR_HOST = host;
  const projectId = `hub-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    config: { driver: 'firestore', projectId },
    async drop() {
      const res = await fetch(
        `http://${host}/emulator/v1/projects/${projectId}/databases/(default)/documents`,
        { method: 'DELETE' },
      );
      if (!res.ok) throw new Error(`Clearing emulator project ${projectId} failed: ${res.status}`);
    },
  };
}
