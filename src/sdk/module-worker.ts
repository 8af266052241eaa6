/**
 * Worker threads on modules of this package, or of a plugin built the same
 * way. From dist/ (what `ferry` runs, and the installed package) a module is
 * JavaScript and starts as it is. From the TypeScript sources (the tests,
 * `tsx`), the worker first registers tsx's loader: a loader registered in the
 * main thread does not reach a worker, and Node ignores `--import` in a
 * worker's execArgv.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

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
