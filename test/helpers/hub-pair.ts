/**
 * Two real hub processes on one database, for the suites that check what one process sees of the
 * other's (and the CLI's) writes at once.
 */
import { expect } from 'vitest';
import { startServer, type Project, type RunningServer } from './cli.ts';

export interface HubPair {
  a: RunningServer;
  b: RunningServer;
  /** The first administrator's token, as hub A printed it on the empty database. */
  admin: string;
  /** Stops both hubs and removes both projects. */
  stop(): Promise<void>;
}

/**
 * Starts hub A in `projects[0]` (after `migrate` there, when asked), reads the first
 * administrator's token it prints, then starts hub B in `projects[1]`. On a failure it stops what
 * it started and removes the projects before rethrowing.
 */
export async function startHubPair(
  projects: readonly [Project, Project],
  { migrate = false } = {},
): Promise<HubPair> {
  const started: RunningServer[] = [];
  const stop = async () => {
    await Promise.all(started.map((server) => server.stop()));
    await Promise.all(projects.map((project) => project.remove()));
  };
  try {
    if (migrate) {
      const migrated = await projects[0].run('migrate');
      expect(migrated.code, migrated.stderr).toBe(0);
    }
    const a = await startServer(projects[0].dir, []);
    started.push(a);
    const admin = /hbk_[A-Za-z0-9_-]{43}/.exec(a.stdout())![0];
    const b = await startServer(projects[1].dir, []);
    started.push(b);
    return { a, b, admin, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
