/**
 * Starts a worker thread on a module beside the caller, from the compiled build (name.js) or
 * from the TypeScript sources (name.ts under tsx). A worker thread does not inherit tsx's
 * loader on Node 20 (neither `--import tsx` nor tsx's register() reach it), so from the
 * sources the worker registers tsx first, then loads the .ts file. `prelude` runs in the
 * worker before the module loads (CommonJS: `require` is there).
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

export function startWorkerBeside(callerUrl: string, name: string, opts: { prelude?: string; resourceLimits?: ResourceLimits } = {}): Worker {
  const fromSources = callerUrl.endsWith('.ts');
  const module = JSON.stringify(new URL(`./${name}.${fromSources ? 'ts' : 'js'}`, callerUrl).href);
  const load = fromSources ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${module}); })` : `import(${module})`;
  return new Worker(`${opts.prelude ?? ''}\n${load}`, { eval: true, ...(opts.resourceLimits ? { resourceLimits: opts.resourceLimits } : {}) });
}
