#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so a fresh clone needs no build step
// and `npx ferry` can never run a stale build.
import { register } from 'tsx/esm/api';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

register();
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { main } = await import(pathToFileURL(join(root, 'src/cli/main.ts')).href);
process.exitCode = await main(process.argv.slice(2));
