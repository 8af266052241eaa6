import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    globalSetup: ['test/build-dist.ts'],
    env: { TZ: 'UTC' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Much of the suite waits on child processes, sockets and timers; vitest's default of
    // one worker fewer than the cores leaves one of a 2-core machine's two idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
