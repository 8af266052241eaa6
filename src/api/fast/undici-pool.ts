/**
 * undici's Pool, loaded alone. The plain path is `import { Pool } from
 * 'undici'`, whose index loads the whole library (fetch, WebSocket,
 * EventSource, caches, mock agents) before any command can start: 147 ms of
 * every `ferry` start-up on the 2-core machine, against 46 ms for the pool's
 * own modules (docs/performance.md, "Start-up"). ferry uses nothing else of
 * undici at run time (`Dispatcher` is a type). test/unit/api/undici-pool.test.ts
 * checks that this is the class the package exports, so an undici release
 * that moves the file fails the suite instead of a user's run.
 */
import { createRequire } from 'node:module';
import type { Pool as UndiciPool } from 'undici';

const require = createRequire(import.meta.url);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
