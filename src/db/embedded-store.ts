// The embedded store seen from the event loop: PGlite runs in a thread of its own (embedded-worker.ts), and
// this side sends it statements and waits without blocking, so that /health and every request that does not
// need the store answer while a long statement runs (docs/runtime.md, The embedded store's thread). PGlite has
// one session, so the store is a pool of one connection: a request holds it for one statement, a transaction for
// all of its statements. Both waits are bounded, as on PostgreSQL: for the connection (DB_CONNECT_TIMEOUT_MS,
// then StoreBusyError) and for a statement's answer (DB_QUERY_TIMEOUT_MS, then StoreTimeoutError). A statement
// that timed out runs on in the thread (WebAssembly has no signal to cancel it), and the thread answers in
// order, so what is sent next waits behind it; nothing sent is ever answered out of order.
import module from 'node:module'
import { Worker } from 'node:worker_threads'
import {
  CompiledQuery,
  PGliteAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely'
import { StoreBusyError, StoreTimeoutError } from './errors.ts'
import { rowObjects } from './row-objects.ts'
import { isBehindOtherStoreWork } from './store-priority.ts'
import type {
  EmbeddedReply,
  EmbeddedRequest,
  EmbeddedWorkerData,
  QueryAnswer,
  SerializedError,
} from './embedded-worker.ts'

// Built, the service runs dist/db/*.js; from source, src/db/*.ts.
const WORKER_FILE = new URL(
  import.meta.url.endsWith('.ts') ? './embedded-worker.ts' : './embedded-worker.js',
  import.meta.url,
)

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void }
type RequestBody = EmbeddedRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never

function deserializeError(serialized: SerializedError): Error {
  const err = new Error(serialized.message)
  err.name = serialized.name
  return Object.assign(err, serialized.fields)
}

export interface EmbeddedStoreOptions {
  pgdata: string | undefined
  fsync: boolean
  snapshot?: ArrayBuffer
}

export class EmbeddedStore {
  readonly #worker: Worker
  readonly #pending = new Map<number, Pending>()
  readonly #listeners = new Map<string, (payload: string) => void>()
  readonly #syncs = new Int32Array(new SharedArrayBuffer(4))
  #nextId = 1
  #closed: Error | undefined
  #exited: Promise<void>
  // The one connection: held by a statement or a transaction; the others wait in line, work that runs behind
  // other work (store-priority.ts) in a line of its own that moves only when the first is empty.
  #held = false
  readonly #waiting: { grant: () => void }[] = []
  readonly #waitingBehind: { grant: () => void }[] = []
  #started: { resolve: () => void; reject: (err: Error) => void } | undefined

  /** Commits reach the disk (fsync(2)) before they are acknowledged. */
  readonly fsync: boolean

  private constructor(options: EmbeddedStoreOptions) {
    this.fsync = options.pgdata !== undefined && options.fsync
    const data: EmbeddedWorkerData = {
      pgdata: options.pgdata,
      fsync: options.fsync,
      snapshot: options.snapshot,
      syncs: this.#syncs,
    }
    const compileCache = module.getCompileCacheDir()
    this.#worker = new Worker(WORKER_FILE, {
      workerData: data,
      transferList: options.snapshot ? [options.snapshot] : [],
      // The compile cache is per thread: the service's (bin/compile-cache.js) serves this one too. The thread
      // gets the process's environment as it is (passed through, not read as configuration).
      // eslint-disable-next-line no-restricted-properties
      env: compileCache ? { ...process.env, NODE_COMPILE_CACHE: compileCache } : process.env,
      name: 'embedded store',
      // None of the parent's Node options: V8's flags are the process's anyway, and some (--input-type of a
      // `node -e` parent) are refused for a thread that runs a module file.
      execArgv: [],
    })
    this.#worker.unref()
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()))
    this.#worker.on('message', (reply: EmbeddedReply) => this.#receive(reply))
    this.#worker.on('error', (err: Error) => this.#fail(err))
    this.#worker.once('exit', (code) =>
      this.#fail(new Error(`Embedded database is closed (its thread exited, ${code})`)),
    )
  }

  /** Starts the thread and opens PGlite in it; rejects with PGlite's error when it cannot open. */
  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const store = new EmbeddedStore(options)
    store.#worker.ref()
    try {
      await new Promise<void>((resolve, reject) => {
        store.#started = { resolve, reject }
      })
    } finally {
      store.#worker.unref()
    }
    return store
  }

  #receive(reply: EmbeddedReply) {
    if ('started' in reply) return this.#started?.resolve()
    if ('startFailed' in reply) {
      this.#started?.reject(deserializeError(reply.startFailed))
      void this.#worker.terminate()
      return
    }
    if ('notification' in reply) return this.#listeners.get(reply.notification.channel)?.(reply.notification.payload)
    const pending = this.#pending.get(reply.id)
    if (!pending) return
    this.#pending.delete(reply.id)
    // The thread keeps the process alive only while it owes an answer (a CLI command waiting on it).
    if (this.#pending.size === 0) this.#worker.unref()
    if (reply.ok) pending.resolve(reply.value)
    else pending.reject(deserializeError(reply.error))
  }

  #fail(err: Error) {
    this.#closed ??= err
    this.#started?.reject(err)
    for (const pending of this.#pending.values()) pending.reject(err)
    this.#pending.clear()
  }

  get closed(): boolean {
    return this.#closed !== undefined
  }

  /** fsync(2) calls the thread has made for commits and checkpoints. */
  get syncs(): number {
    return Atomics.load(this.#syncs, 0)
  }

  #send<T>(body: RequestBody): { id: number; answer: Promise<T> } {
    const id = this.#nextId++
    if (this.#closed)
      return { id, answer: Promise.reject(new Error('Embedded database is closed', { cause: this.#closed })) }
    const answer = new Promise<T>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref()
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      this.#worker.postMessage({ ...body, id })
    })
    return { id, answer }
  }

  #request<T>(body: RequestBody): Promise<T> {
    return this.#send<T>(body).answer
  }

  /**
   * Runs one statement. With `timeoutMs`, a statement not answered in time rejects with StoreTimeoutError and, if
   * the thread has not started it yet, is never run.
   */
  query(sql: string, params: readonly unknown[], timeoutMs = 0): Promise<QueryAnswer> {
    const { id, answer } = this.#send<QueryAnswer>({ op: 'query', sql, params })
    if (timeoutMs <= 0) return answer
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const pending = this.#pending.get(id)
        if (!pending) return
        this.#pending.delete(id)
        if (this.#pending.size === 0) this.#worker.unref()
        this.#worker.postMessage({ op: 'cancel', target: id, id: this.#nextId++ } satisfies EmbeddedRequest)
        reject(new StoreTimeoutError(`the embedded store did not answer within ${timeoutMs} ms`))
      }, timeoutMs)
    })
    return Promise.race([answer, late]).finally(() => clearTimeout(timer))
  }

  /** LISTEN on the store's session; returns the UNLISTEN. */
  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    this.#listeners.set(channel, onPayload)
    await this.#request({ op: 'listen', channel })
    return async () => {
      this.#listeners.delete(channel)
      if (!this.closed) await this.#request({ op: 'unlisten', channel })
    }
  }

  /** The data folder as PGlite dumps it (uncompressed). */
  async dump(): Promise<Blob> {
    return new Blob([await this.#request<ArrayBuffer>({ op: 'dump' })])
  }

  /** Closes PGlite (a clean shutdown of its PostgreSQL) and ends the thread. */
  async close(): Promise<void> {
    if (!this.#closed) {
      await this.#request({ op: 'close' }).catch(() => {})
      this.#closed = new Error('Embedded database is closed')
    }
    // A thread that does not end after close is ended: nothing it holds is owed to anyone any more.
    const timer = setTimeout(() => void this.#worker.terminate(), 5000)
    await this.#exited
    clearTimeout(timer)
  }

  /** Takes the one connection, waiting at most `waitMs` (0: no bound); `behind`: after every other waiter. */
  acquire(waitMs: number, behind = false): Promise<void> {
    if (!this.#held) {
      this.#held = true
      return Promise.resolve()
    }
    const line = behind ? this.#waitingBehind : this.#waiting
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const waiter = {
        grant: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      if (waitMs > 0) {
        timer = setTimeout(() => {
          const at = line.indexOf(waiter)
          if (at >= 0) line.splice(at, 1)
          reject(new StoreBusyError(`no embedded-store connection came free within ${waitMs} ms`))
        }, waitMs)
      }
      line.push(waiter)
    })
  }

  release(): void {
    const next = this.#waiting.shift() ?? this.#waitingBehind.shift()
    if (next) next.grant()
    else this.#held = false
  }
}

export interface EmbeddedTimeouts {
  /** How long a statement waits for the connection; 0 = no bound. */
  waitMs: number
  /** How long a statement waits for its answer; 0 = no bound. */
  queryMs: number
}

/** The store's one session as Kysely's connection, each statement bounded by queryMs. */
function embeddedConnection(store: EmbeddedStore, queryMs: number): DatabaseConnection {
  return {
    async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
      const { fields, rows, affectedRows } = await store.query(compiled.sql, compiled.parameters, queryMs)
      return {
        rows: rowObjects(
          fields.map((name) => ({ name })),
          rows,
        ) as R[],
        numAffectedRows: affectedRows === undefined ? undefined : BigInt(affectedRows),
      }
    },
    // eslint-disable-next-line require-yield -- Kysely's interface; the store has no cursors
    async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
      throw new Error('The embedded store does not stream results')
    },
  }
}

class EmbeddedDriver implements Driver {
  readonly store: EmbeddedStore
  readonly timeouts: EmbeddedTimeouts

  constructor(store: EmbeddedStore, timeouts: EmbeddedTimeouts) {
    this.store = store
    this.timeouts = timeouts
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.store.acquire(this.timeouts.waitMs, isBehindOtherStoreWork())
    return embeddedConnection(this.store, this.timeouts.queryMs)
  }

  async releaseConnection(): Promise<void> {
    this.store.release()
  }

  // The connection is the store's one session: these run on it directly.
  async beginTransaction(): Promise<void> {
    try {
      await this.store.query('begin', [], this.timeouts.queryMs)
    } catch (err) {
      // A BEGIN that timed out may still have run: the ROLLBACK after it (in the thread's order) closes what it opened.
      if (err instanceof StoreTimeoutError) void this.store.query('rollback', []).catch(() => {})
      throw err
    }
  }

  // COMMIT and ROLLBACK are never dropped: the session must not stay in a transaction the next statement would join.
  async commitTransaction(): Promise<void> {
    await this.store.query('commit', [])
  }

  async rollbackTransaction(): Promise<void> {
    await this.store.query('rollback', [])
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`))
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`))
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`))
  }

  // The store outlives its Kysely instances (the request one and the background one share it): Database.close ends it.
  async destroy(): Promise<void> {}
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`

/** PGlite's adapter, but the one connection is this driver's to share out, with its bounded wait (Kysely's own lock waits without bound). */
class EmbeddedAdapter extends PGliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true
  }
}

/** A Kysely dialect over the store: one per Kysely instance, each with its own timeouts, sharing the one connection. */
export function embeddedDialect(store: EmbeddedStore, timeouts: EmbeddedTimeouts): Dialect {
  return {
    createAdapter: () => new EmbeddedAdapter(),
    createDriver: () => new EmbeddedDriver(store, timeouts),
    createQueryCompiler: (): QueryCompiler => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  }
}
