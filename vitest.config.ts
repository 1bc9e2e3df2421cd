import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that measure timing under faults (stalls, killed connections, a saturated CPU) or that
 * saturate the machine themselves: they run one at a time, after the other suites, so neither
 * disturbs the other on a small CI machine.
 */
const ALONE = ['test/faults/**/*.test.ts', 'test/kernel/stale-reads.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suites',
          include: [
            'kernel/**/*.test.ts',
            'plugins/**/*.test.ts',
            'cli/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...ALONE],
          // Two files at a time: each file makes its own databases, so they never meet.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
