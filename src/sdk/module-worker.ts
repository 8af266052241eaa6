/**
 * Worker threads on modules of this package, or of a plugin built the same
 * way. From dist/ (what `ferry` runs, and the installed package) a module is
 * JavaScript and starts as it is. From the TypeScript sources (the tests,
 * `tsx`), the worker first registers tsx's loader: a loader registered in the
 * main thread does not reach a worker, and Node ignores `--import` in a
 * worker's execArgv.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { FerryError } from './errors.js';

/**
 * Starts a module on a worker thread.
 *
 * @param importMetaUrl - the caller's `import.meta.url`; the module lies beside it
 * @param name - the module's file name without its extension (`.ts` from sources, `.js` from a build)
 * @param workerData - handed to the thread as `workerData`
 * @param resourceLimits - V8's limits for the thread (its young generation, say)
 * @returns the started worker
 */
export function startModuleWorker(importMetaUrl: string, name: string, workerData: unknown, resourceLimits: ResourceLimits = {}): Worker {
  const fromSource = importMetaUrl.endsWith('.ts');
  const module = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, importMetaUrl);
  if (!fromSource) return new Worker(module, { workerData, resourceLimits });
  // tsx is a dev dependency: the sources run only in a checkout, where it is installed.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); });`;
  return new Worker(boot, { eval: true, workerData, resourceLimits });
}

/** What an operator's thread setting says (see {@link threadSetting}). */
export type ThreadSetting = 'auto' | 'on' | 'off';

/**
 * Reads an operator's setting for a worker thread from the environment:
 * unset, empty or `auto` leaves the choice to the code, `off` never starts
 * the thread, and `on` (where `allowOn`) always does. Anything else fails
 * with a config error that names the variable and carries `hint`.
 *
 * @param name - the variable, e.g. `FERRY_CSV_PARSE_THREAD`
 * @param env - the environment to read (`process.env`)
 * @param hint - what each value does, for the error
 * @param allowOn - whether `on` is one of the values
 */
export function threadSetting(name: string, env: NodeJS.ProcessEnv, hint: string, allowOn = false): ThreadSetting {
  const given = env[name];
  const value = given?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'off' || (allowOn && value === 'on')) return value;
  const choices = allowOn ? '"auto", "on" or "off"' : '"auto" or "off"';
  throw new FerryError('FERRY_CONFIG_INVALID', `${name} must be ${choices}, found ${JSON.stringify(given)}`, { hint });
}
