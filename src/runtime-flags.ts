// The V8 settings the service runs with (heap sizing, WebAssembly tiers). They must be given on node's command
// line (V8 sizes its heap when the process starts), so they are written out where the service is started:
// package.json `start`, the shebangs of bin/serve.js and bin/livestock-api.js, and here for the workers of
// `serve --workers N` and for the bench's service process (bench/processes.ts).
// test/foundation/runtime-flags.test.ts checks that those places agree with this list.
//
// Without them, Node 24 on a machine with a few GB of memory lets the young generation grow to 2 x 32 MB
// and the old generation to several times what the service keeps alive before collecting it: the
// process peaked at 440-470 MB RSS under the bench's loads on PostgreSQL (sensordata pages of 10,000 rows,
// 32 connections of one-animal reads) with ~65 MB of live heap.
// - --max-semi-space-size=16: young generation of 2 x 16 MB. 2 x 8 MB held the peak ~15-25 MB lower, but
//   under load a page in flight (a 100-animal list on 32 connections) outlived the young collections and was
//   promoted, and full collections took a third of the CPU: in full benches of 24 November 2026 the list
//   answered at 0.68 of the bare server with 2 x 8 MB and 0.91 with 2 x 16 MB (README, Start-up and memory);
// - --heap-growing-percent=50: the old generation may grow to 1.5 x what the last full collection kept
//   (instead of up to 4 x). A soft target, not a limit: the heap still grows as far as live data needs,
//   so a burst of large bodies cannot run the process out of memory as --max-old-space-size could.
// Node's defaults (2 x 32 MB, growth up to 4 x) peaked at 440-470 MB under the same loads.
// - --no-wasm-tier-up --no-wasm-dynamic-tiering: WebAssembly stays on V8's baseline compiler (Liftoff). The
//   embedded store is PostgreSQL compiled to WebAssembly, and once its queries run, V8's optimizing compiler
//   takes up one of its functions (index 2272, 105 kB of code) whose compilation needs ~600 MB of compiler
//   memory for ~0.6 s (--turbo-stats-wasm): the embedded service peaked at ~800 MB a few seconds after every
//   start, against ~220 MB without (idle ~275 against ~212 MB). The price is the embedded store's speed:
//   12-25 % fewer one-animal reads and 35 % fewer 10,000-row pages, the 100-animal page within the noise
//   (24 November 2026). PostgreSQL mode runs no WebAssembly of its own. An operator can turn the tiers back on
//   (--wasm-tier-up --wasm-dynamic-tiering): the later flag wins, and missingServiceFlags counts them as given.

export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=16',
  '--heap-growing-percent=50',
  '--no-wasm-tier-up',
  '--no-wasm-dynamic-tiering',
]

// The environment the service starts with, for the same reason: glibc reads it when the process starts. Written
// out beside the flags (`MALLOC_ARENA_MAX=2 node ...` in package.json `start`, `env -S MALLOC_ARENA_MAX=2 node ...`
// in the shebangs); the supervisor of `serve --workers N` gives it to each worker.
// - MALLOC_ARENA_MAX=2: glibc gives each thread that allocates while another holds the lock an arena of its own,
//   up to 8 per core, and keeps what an arena once held. Node's own threads (V8's compiler and collector helpers,
//   libuv's pool) then held 15-30 MB of freed memory: in a probe of the one-animal and 10,000-row loads the peak was
//   207 MB with 2 arenas (202-211) against 224 MB with the default (209-224), and 196 MB (191-198) with one arena
//   (24 November 2026, 3 runs each, throughput within the runs' noise).

export const SERVICE_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' }

/** The service's variables that `env` does not set (to any value). */
export function missingServiceEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
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
