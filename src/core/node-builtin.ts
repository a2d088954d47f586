/**
 * Node's builtin modules without an import statement, so that browser
 * bundles never see them: the pool's worker_threads (workers/host.ts) and
 * zlib for the embedded kernels (core/inflate.ts).
 *
 * @module
 */

/** Node's builtin module `name`, or undefined outside Node or before Node 20.16 (no process.getBuiltinModule). */
export function nodeBuiltin<T>(name: string): T | undefined {
  const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown; versions?: { node?: string } } })
    .process;
  if (p?.versions?.node === undefined || typeof p.getBuiltinModule !== 'function') return undefined;
  return p.getBuiltinModule(name) as T;
}
