// The embedded store's thread: it owns the PGlite instance, so that a long statement runs beside the event loop,
// not on it (docs/runtime.md, The embedded store's thread). It answers embedded-store.ts's messages one at a
// time, in the order they came (PGlite runs one statement at a time anyway): a statement, LISTEN, a data-folder
// dump, close. A statement whose caller stopped waiting (`cancel`) before it started is never run: the thread
// reads the messages that arrived before it starts the next one. Rows travel as arrays of values and become
// objects on the main thread (row-objects.ts).
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { DURABLE_START_PARAMS, DurableNodeFS, EMBEDDED_START_PARAMS } from './durable-nodefs.ts'

export interface EmbeddedWorkerData {
  /** The data folder's pgdata, or undefined for a store in memory. */
  pgdata: string | undefined
  fsync: boolean
  /** A data-folder dump (openEmbeddedSnapshot) the store in memory starts from. */
  snapshot: ArrayBuffer | undefined
  /** One counter, of the fsync(2) calls made for commits and checkpoints (embeddedSyncCount). */
  syncs: Int32Array
}

export type EmbeddedRequest = { id: number } & (
  | { op: 'query'; sql: string; params: readonly unknown[] }
  | { op: 'listen'; channel: string }
  | { op: 'unlisten'; channel: string }
  | { op: 'dump' }
  | { op: 'close' }
  /** Drops request `target` if it has not started. */
  | { op: 'cancel'; target: number }
)

export interface SerializedError {
  name: string
  message: string
  /** The error's own string and number properties: code, constraint, detail... (db/errors.ts reads them). */
  fields: Record<string, string | number>
}

export interface QueryAnswer {
  fields: string[]
  rows: unknown[][]
  affectedRows: number | undefined
}

export type EmbeddedReply =
  | { id: number; ok: true; value: QueryAnswer | ArrayBuffer | undefined }
  | { id: number; ok: false; error: SerializedError }
  | { notification: { channel: string; payload: string } }
  | { started: true }
  | { startFailed: SerializedError }

const INT8_OID = 20
const NUMERIC_OID = 1700
// int8 (counts, ms timestamps) and numeric as numbers, as on PostgreSQL (database.ts): ms timestamps stay far below 2^53.
const parseNumber = (value: string) => Number(value)
const parsers = { [INT8_OID]: parseNumber, [NUMERIC_OID]: parseNumber }

function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} }
  const fields: Record<string, string | number> = {}
  for (const [key, value] of Object.entries(err)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value
  }
  return { name: err.name, message: err.message, fields }
}

async function open(data: EmbeddedWorkerData): Promise<PGlite> {
  if (data.pgdata === undefined) {
    return PGlite.create({
      parsers,
      startParams: EMBEDDED_START_PARAMS,
      ...(data.snapshot ? { loadDataDir: new Blob([data.snapshot]) } : {}),
    })
  }
  if (!data.fsync) return PGlite.create(data.pgdata, { parsers, startParams: EMBEDDED_START_PARAMS })
  const fs = new DurableNodeFS(data.pgdata, () => Atomics.add(data.syncs, 0, 1))
  return PGlite.create({ fs, startParams: DURABLE_START_PARAMS, parsers })
}

async function serve(port: NonNullable<typeof parentPort>, data: EmbeddedWorkerData) {
  let pglite: PGlite
  try {
    pglite = await open(data)
  } catch (err) {
    port.postMessage({ startFailed: serializeError(err) } satisfies EmbeddedReply)
    return
  }
  const unlisteners = new Map<string, () => Promise<void>>()
  const handle = async (request: EmbeddedRequest): Promise<QueryAnswer | ArrayBuffer | undefined> => {
    switch (request.op) {
      case 'query': {
        const result = await pglite.query<unknown[]>(request.sql, request.params as unknown[], { rowMode: 'array' })
        return { fields: result.fields.map((f) => f.name), rows: result.rows, affectedRows: result.affectedRows }
      }
      case 'listen': {
        const { channel } = request
        if (!unlisteners.has(channel)) {
          const unlisten = await pglite.listen(channel, (payload) =>
            port.postMessage({ notification: { channel, payload } } satisfies EmbeddedReply),
          )
          unlisteners.set(channel, unlisten)
        }
        return undefined
      }
      case 'unlisten':
        await unlisteners.get(request.channel)?.()
        unlisteners.delete(request.channel)
        return undefined
      case 'dump':
        return (await pglite.dumpDataDir('none')).arrayBuffer()
      case 'close':
        if (!pglite.closed) await pglite.close()
        return undefined
      case 'cancel':
        return undefined
    }
  }
  const queue: EmbeddedRequest[] = []
  let draining = false
  const drain = async () => {
    draining = true
    for (;;) {
      // A turn of the event loop first: messages already sent (a cancel among them) are read before the next start.
      await new Promise((resolve) => setImmediate(resolve))
      const request = queue.shift()
      if (!request) break
      try {
        const value = await handle(request)
        port.postMessage(
          { id: request.id, ok: true, value } satisfies EmbeddedReply,
          value instanceof ArrayBuffer ? [value] : [],
        )
        if (request.op === 'close') port.close()
      } catch (err) {
        port.postMessage({ id: request.id, ok: false, error: serializeError(err) } satisfies EmbeddedReply)
      }
    }
    draining = false
  }
  port.on('message', (request: EmbeddedRequest) => {
    if (request.op === 'cancel') {
      const at = queue.findIndex((queued) => queued.id === request.target)
      if (at >= 0) queue.splice(at, 1)
      return
    }
    queue.push(request)
    if (!draining) void drain()
  })
  port.postMessage({ started: true } satisfies EmbeddedReply)
}

if (parentPort) await serve(parentPort, workerData as EmbeddedWorkerData)
