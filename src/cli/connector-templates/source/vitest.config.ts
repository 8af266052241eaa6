import { defineConfig } from 'vitest/config';

export default defineConfig({
  // node_modules/ferry may be a link to the ferry that made this folder. Its
  // kit imports vitest, which must be this folder's: resolve through the link,
  // not from where the link points (a project that installed ferry has no
  // vitest next to it).
  resolve: { preserveSymlinks: true },
  test: {
    include: ['test/**/*.test.ts'],
    env: { TZ: 'UTC' },
    server: { deps: { inline: ['ferry'] } },
  },
});
