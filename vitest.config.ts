import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'kernel/**/*.test.ts',
      'plugins/**/*.test.ts',
      'cli/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
