/**
 * The command table, in the order `ferry --help` shows it. Each command's
 * module is imported only when that command runs (or its help is asked for),
 * so `ferry --help` and `ferry status` do not pay for the pipeline, the
 * emulator or the database drivers. A new command is one line here plus its
 * module exporting `register`.
 */
import type { RegisterCommand } from './main.js';

export interface CommandEntry {
  name: string;
  /** The one-line description `ferry --help` lists. */
  description: string;
  load: () => Promise<{ register: RegisterCommand }>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'init', description: 'scaffold ferry.yaml, an example pipeline over sample data, and .env.example', load: () => import('./init.js') },
  {
    name: 'check',
    description: 'validate the config, mappings and state store, reach every source, call /v1/health and verify the key has the scopes the syncs need',
    load: () => import('./check.js'),
  },
  { name: 'discover', description: "show the source's streams, fields, source and inferred field types, keys and cursor candidates", load: () => import('./discover.js') },
  { name: 'preview', description: 'print mapped, validated request bodies beside their source records, and the plan; pushes nothing', load: () => import('./preview.js') },
  { name: 'run', description: 'run syncs (all, or the ones named): read, map, push what changed, checkpoint', load: () => import('./run.js') },
  { name: 'export', description: 'run reverse exports (all, or the ones named): read the service, write files or tables', load: () => import('./export.js') },
  { name: 'status', description: 'last run per sync (status, when, duration, counts), cursor, open failures and live records', load: () => import('./status.js') },
  { name: 'failures', description: 'the dead-letter: records the service (or validation) rejected, with reasons', load: () => import('./failures.js') },
  { name: 'state', description: 'inspect or reset incremental state (cursor, ledger, failures)', load: () => import('./state.js') },
  { name: 'ask', description: "ask the assistant a question about the organization's data; polls until the answer is ready", load: () => import('./ask.js') },
  { name: 'emulator', description: 'serve the local implementation of /v1 (SQLite-backed) until interrupted', load: () => import('./emulator.js') },
  { name: 'schema', description: 'print the JSON Schema of ferry.yaml (for editor completion)', load: () => import('./schema.js') },
  { name: 'config', description: 'show the resolved configuration (includes merged, ${VAR} resolved, secrets masked)', load: () => import('./config.js') },
  { name: 'completion', description: 'print a shell completion script: ferry completion bash|zsh|fish', load: () => import('./completion.js') },
  { name: 'connector', description: 'write your own connectors', load: () => import('./connector.js') },
  { name: 'console', description: 'a local web console: runs, dead-letter, state, the service\'s data, config; run a sync (docs/console.md)', load: () => import('./console.js') },
  {
    name: 'worker',
    description: 'take queued and scheduled runs from the shared PostgreSQL state until SIGTERM (see docs/scale-out.md)',
    load: () => import('./worker.js'),
  },
];
