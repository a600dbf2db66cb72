// The V8 settings the service runs with. They must be on node's command line (V8 sizes its heap when the process
// starts), so they are written out where the service is started: package.json `start`, the shebangs of
// bin/serve.js and bin/livestock-api.js, and here for the workers of `serve --workers N` and the bench's service
// process (bench/processes.ts). test/foundation/runtime-flags.test.ts checks that those places agree.
// docs/runtime.md has the measurements behind each value.
// - --max-semi-space-size=16: a young generation large enough that a page in flight dies young instead of being
//   promoted and collected by full collections;
// - --heap-growing-percent=50: the old generation grows to 1.5x the live heap rather than 4x (a target, not a limit);
// - --no-wasm-tier-up --no-wasm-dynamic-tiering: the embedded store's WebAssembly stays on V8's baseline compiler,
//   whose optimizing tier needs hundreds of MB for one of PostgreSQL's functions. An operator may turn the tiers
//   back on (--wasm-tier-up --wasm-dynamic-tiering): the later flag wins, and missingServiceFlags counts them as given.
import { processEnvironment } from './config.ts'

export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=16',
  '--heap-growing-percent=50',
  '--no-wasm-tier-up',
  '--no-wasm-dynamic-tiering',
]

// The environment the service starts with, for the same reason: glibc reads it when the process starts. Written
// out beside the flags (`MALLOC_ARENA_MAX=2 node ...` in package.json `start`, `env -S MALLOC_ARENA_MAX=2 node ...`
// in the shebangs); the supervisor of `serve --workers N` gives it to each worker.
// - MALLOC_ARENA_MAX=2: fewer glibc arenas, so Node's helper threads do not each keep memory they freed.

export const SERVICE_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' }

/** The service's variables that `env` does not set (to any value). */
export function missingServiceEnvironment(env: NodeJS.ProcessEnv = processEnvironment()): string[] {
  return Object.keys(SERVICE_ENVIRONMENT).filter((name) => env[name] === undefined)
}

/** The service's variables, then `env` (a value `env` sets wins). */
export function withServiceEnvironment(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return { ...SERVICE_ENVIRONMENT, ...env }
}

/** The option a flag sets: `--heap_growing_percent=80` and `--no-wasm-tier-up` set `--heap-growing-percent` and `--wasm-tier-up`. */
const optionOf = (flag: string) =>
  flag
    .split('=')[0]!
    .replaceAll('_', '-')
    .replace(/^--no-/, '--')

/** The service's flags whose option `execArgv` does not set (to any value). */
export function missingServiceFlags(execArgv: readonly string[] = process.execArgv): string[] {
  const given = new Set(execArgv.map(optionOf))
  return SERVICE_NODE_FLAGS.filter((flag) => !given.has(optionOf(flag)))
}

/** `execArgv` with the service's flags added before it, where it does not set the same option already. */
export function withServiceFlags(execArgv: readonly string[]): string[] {
  return [...missingServiceFlags(execArgv), ...execArgv]
}
