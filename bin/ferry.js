#!/usr/bin/env node
// Runs the compiled CLI from dist/ (`npm run build`; `npm ci` and `npm pack`
// build it through the prepare script). Nothing is compiled at start-up.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('ferry is not built: run `npm run build` in the ferry checkout (npm ci does it too)');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
