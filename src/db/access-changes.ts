// The feed of access changes (migration 0009's triggers notify `livestock_access`): a LISTEN of its own
// per process. On PostgreSQL it is a dedicated connection outside the pool, reconnected with backoff; while
// it is down the feed is not live, and the caller cache stops serving (a stale cache could admit a revoked
// token). The embedded store delivers notifications in process, when the notifying query completes.
import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'kysely'
import pg from 'pg'
import type { Database } from './database.ts'
import { ACCESS_CHANGES_CHANNEL } from './migrations/0009_access_change_notifications.ts'

export interface AccessChangeFeed {
  /** True while every committed change is being delivered; false before start and while reconnecting. */
  readonly live: boolean
  /** Called with each change's JSON payload, and with 'reset' when changes may have been missed. */
  onChange(listener: (payload: string) => void): void
  /** Starts listening (a failed connection is retried in the background; it never throws). */
  start(): Promise<void>
  /** Resolves once every change committed before the call has been delivered here (at most `timeoutMs`). */
  sync(timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

const SYNC_PREFIX = 'sync:'
const RECONNECT_MS = 1000

export function createAccessChangeFeed(
  database: Database,
  databaseUrl: string | undefined,
  log?: FastifyBaseLogger,
): AccessChangeFeed {
  const listeners: ((payload: string) => void)[] = []
  const pendingSyncs = new Map<string, () => void>()
  let live = false
  let closed = false
  let stopListening: () => Promise<void> = async () => {}

  const deliver = (payload: string) => {
    if (payload.startsWith(SYNC_PREFIX)) pendingSyncs.get(payload.slice(SYNC_PREFIX.length))?.()
    else for (const listener of listeners) listener(payload)
  }
  const setLive = (value: boolean) => {
    // Changes committed while nobody listened are unknown: whatever is cached is dropped.
    if (value && !live) for (const listener of listeners) listener('reset')
    live = value
  }

  async function listenEmbedded(listen: NonNullable<Database['listen']>) {
    const unlisten = await listen(ACCESS_CHANGES_CHANNEL, deliver)
    stopListening = () => unlisten()
    setLive(true)
  }

  async function listenPostgres(url: string) {
    let client: pg.Client | undefined
    let retry: NodeJS.Timeout | undefined
    const retryLater = () => {
      if (closed) return
      retry = setTimeout(() => void connect(), RECONNECT_MS)
      retry.unref()
    }
    const connect = async () => {
      const next = new pg.Client({
        connectionString: url,
        application_name: 'livestock-api access-changes',
        connectionTimeoutMillis: 5000,
      })
      const lost = (err?: Error) => {
        if (client !== next) return
        client = undefined
        setLive(false)
        if (!closed) log?.warn({ err }, 'access-change feed lost; the caller cache is bypassed until it is back')
        retryLater()
      }
      next.on('error', lost)
      next.on('end', () => lost())
      next.on('notification', (message) => {
        if (message.payload !== undefined) deliver(message.payload)
      })
      try {
        await next.connect()
        await next.query(`LISTEN ${ACCESS_CHANGES_CHANNEL}`)
        if (closed) return void next.end().catch(() => {})
        client = next
        setLive(true)
      } catch (err) {
        next.removeAllListeners('end')
        await next.end().catch(() => {})
        if (!closed) log?.warn({ err }, 'access-change feed could not connect; retrying')
        retryLater()
      }
    }
    stopListening = async () => {
      clearTimeout(retry)
      const current = client
      client = undefined
      await current?.end().catch(() => {})
    }
    await connect()
  }

  return {
    get live() {
      return live
    },
    onChange(listener) {
      listeners.push(listener)
    },
    async start() {
      if (database.listen) await listenEmbedded(database.listen)
      else if (databaseUrl) await listenPostgres(databaseUrl)
    },
    async sync(timeoutMs = 1000) {
      if (!live) return
      const nonce = randomUUID()
      const arrived = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs)
        pendingSyncs.set(nonce, () => {
          clearTimeout(timer)
          resolve()
        })
      })
      try {
        await sql`select pg_notify(${ACCESS_CHANGES_CHANNEL}, ${SYNC_PREFIX + nonce})`.execute(database.db)
        await arrived
      } finally {
        pendingSyncs.delete(nonce)
      }
    },
    async close() {
      closed = true
      live = false
      // The store may be gone already (closed first, or a test that closes it under the app).
      await stopListening().catch(() => {})
    },
  }
}
