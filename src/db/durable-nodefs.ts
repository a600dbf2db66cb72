// Durable commits for the embedded store. PGlite runs PostgreSQL in WebAssembly over Emscripten's NODEFS,
// and starts it with `-F` (fsync off); NODEFS has no fsync of its own either, so a commit reached the OS
// page cache but never the disk: it survived kill -9, not a power cut. Here PostgreSQL runs with fsync
// on and wal_sync_method=fsync (Emscripten maps fdatasync to a no-op; fsync reaches the file system's
// stream op), and NODEFS gets that op: a real fsync(2) of the file. A commit is then on disk before
// PostgreSQL reports it, and checkpoints sync data files before WAL is recycled, as on a server.
// Written against PGlite 0.5.16 (pinned): opening fails loudly if NODEFS is not shaped as expected.
import { fsyncSync } from 'node:fs'
import type { PGlite } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'

/**
 * PGlite's default start parameters (0.5.16), plus a small shared_buffers: PostgreSQL's default is carved out
 * of the WebAssembly heap, which never shrinks, and a smaller one reads as fast since pages below it come from
 * the OS page cache through NODEFS (docs/runtime.md, Where the memory goes).
 */
export const EMBEDDED_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
  '-c',
  'shared_buffers=16MB',
]

/** EMBEDDED_START_PARAMS without -F (fsync off), and commits synced with fsync(2). */
export const DURABLE_START_PARAMS = [
  ...EMBEDDED_START_PARAMS.filter((param) => param !== '-F'),
  '-c',
  'fsync=on',
  '-c',
  'wal_sync_method=fsync',
]

type Init = NodeFS['init']
interface NodefsModule {
  NODEFS?: { stream_ops?: Record<string, unknown> }
}

export class DurableNodeFS extends NodeFS {
  /** fsync(2) calls made for PostgreSQL (tests check that commits reach the disk). */
  syncs = 0

  /** `onSync`: called after each fsync(2) (the embedded store's thread counts them where the main thread reads them). */
  readonly #onSync: () => void

  constructor(dataDir: string, onSync: () => void = () => {}) {
    super(dataDir)
    this.#onSync = onSync
  }

  override async init(pg: PGlite, options: Parameters<Init>[1]): ReturnType<Init> {
    const { emscriptenOpts } = await super.init(pg, options)
    const addFsync = (mod: NodefsModule) => {
      const streamOps = mod.NODEFS?.stream_ops
      if (!streamOps || typeof streamOps.write !== 'function')
        throw new Error('PGlite NODEFS has changed: commits could not be made durable')
      streamOps.fsync = (stream: { nfd: number }) => {
        fsyncSync(stream.nfd)
        this.syncs++
        this.#onSync()
        return 0
      }
    }
    const preRun = emscriptenOpts.preRun
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [...(Array.isArray(preRun) ? preRun : preRun ? [preRun] : []), addFsync],
      },
    }
  }
}
