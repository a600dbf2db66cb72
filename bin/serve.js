#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=16 --heap-growing-percent=50 --no-wasm-tier-up --no-wasm-dynamic-tiering
// The service's entry (`npm start`; the workers of `serve --workers N` run it too): Node's compile cache
// first (compile-cache.js), then src/server.ts. The V8 heap flags are src/runtime-flags.ts's.
import { enableCompileCache, refuseUnsupportedNode } from './compile-cache.js'

refuseUnsupportedNode()
enableCompileCache()
const { main } = await import('../src/server.ts')
await main()
