// Node's compile cache for the service and the CLI: a start after the first finds each TypeScript module already
// stripped and compiled, so it never loads the WebAssembly type stripper and its memory (docs/runtime.md, Compile
// cache). The entries are keyed by Node version and by each file's content, so an edited file is compiled afresh.
//
// The folder is in the project (node_modules/.cache, where tools keep theirs), not in the shared temp folder:
// whoever can write compiled code there could run it in the service. NODE_COMPILE_CACHE=<dir> chooses another
// folder, NODE_DISABLE_COMPILE_CACHE=1 turns the cache off; a folder that cannot be written leaves it off.
// It must be enabled before the first TypeScript module loads, hence the entries import the sources
// dynamically after calling this.
import module from 'node:module'
import { join } from 'node:path'

export const COMPILE_CACHE_DIR = join(import.meta.dirname, '../node_modules/.cache/livestock-api')

/** Enables the cache (unless NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE decided already). */
export function enableCompileCache() {
  return module.enableCompileCache(COMPILE_CACHE_DIR)
}
