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

/** The oldest Node that runs the TypeScript sources itself (type stripping on by default); the project pins 24. */
export const OLDEST_NODE = { major: 22, minor: 18 }

/** Why this Node cannot run the service, or undefined. A machine's own older node fails on the first import with a stack. */
export function unsupportedNode(version = process.versions.node) {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  const oldest = OLDEST_NODE
  if (major > oldest.major || (major === oldest.major && minor >= oldest.minor)) return undefined
  return (
    `livestock-api needs Node ${oldest.major}.${oldest.minor} or later (the project pins Node 24); this is Node ${version}. ` +
    'Run it through npm, which uses the pinned one: npm start, npx livestock-api.'
  )
}

/** Ends the process with that reason on an older Node. */
export function refuseUnsupportedNode() {
  const reason = unsupportedNode()
  if (reason === undefined) return
  process.stderr.write(`${reason}\n`)
  process.exit(1)
}

/** Enables the cache (unless NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE decided already). */
export function enableCompileCache() {
  return module.enableCompileCache(COMPILE_CACHE_DIR)
}
