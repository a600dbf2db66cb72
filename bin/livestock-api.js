#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=16 --heap-growing-percent=50 --no-wasm-tier-up --no-wasm-dynamic-tiering
// Operator CLI entry. Runs the TypeScript sources directly (Node >= 22.18 strips types natively), through
// Node's compile cache (compile-cache.js); `npm exec livestock-api` and npm scripts run it on the project's
// pinned Node 24, with the service's V8 heap flags (src/runtime-flags.ts; `env -S` splits them).
import { enableCompileCache, refuseUnsupportedNode } from './compile-cache.js'

refuseUnsupportedNode()
enableCompileCache()
const { runCli } = await import('../src/cli.ts')

const args = process.argv.slice(2)
const code = await runCli(args)
// `serve` keeps running after runCli returns; only a refusal to start is its exit code.
if (args[0] !== 'serve' || code !== 0) process.exitCode = code
