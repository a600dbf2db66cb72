// The bare baseline of `npm run bench`: node:http and the database driver, no framework, no auth, no
// validation, no hooks. It runs the very statements the service runs for the same reads (as Kysely
// compiles them, checked against its query log) and answers in the same envelope with JSON.stringify (the
// sensordata page, whose JSON the database writes, as the service does, in a string).
// On PostgreSQL (BARE_DATABASE_URL) through a pg pool of the service's default size; on the embedded
// store (BARE_DATA_DIR, a copy of the service's data folder) through PGlite opened as the service opens it.
// Prints {"port":N} once listening; SIGTERM closes it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { DURABLE_START_PARAMS, DurableNodeFS, EMBEDDED_START_PARAMS } from '../src/db/durable-nodefs.ts'

type Query = (text: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[]; affected: number }>

const INT8_OID = 20
const NUMERIC_OID = 1700
const toNumber = (value: string) => Number(value)

async function connect(): Promise<{ query: Query; close: () => Promise<void> }> {
  const url = process.env.BARE_DATABASE_URL
  if (url) {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID || oid === NUMERIC_OID
            ? toNumber
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    })
    return {
      query: async (text, params) => {
        const result = await pool.query(text, params)
        return { rows: result.rows as Record<string, unknown>[], affected: result.rowCount ?? 0 }
      },
      close: () => pool.end(),
    }
  }
  const dir = process.env.BARE_DATA_DIR
  if (!dir) throw new Error('set BARE_DATABASE_URL or BARE_DATA_DIR')
  const fsync = process.env.EMBEDDED_FSYNC !== 'off'
  const pgdata = join(dir, 'pgdata')
  const parsers = { [INT8_OID]: toNumber, [NUMERIC_OID]: toNumber }
  const pglite = fsync
    ? await PGlite.create({ fs: new DurableNodeFS(pgdata), startParams: DURABLE_START_PARAMS, parsers })
    : await PGlite.create(pgdata, { parsers, startParams: EMBEDDED_START_PARAMS })
  return {
    query: async (text, params) => {
      const result = await pglite.query<Record<string, unknown>>(text, params)
      return { rows: result.rows, affected: result.affectedRows ?? 0 }
    },
    close: () => pglite.close(),
  }
}

// The service's statements, as its query log shows them.
const SQL = {
  // The service prepares this one (src/db/prepared.ts); a bare pg server sends it unnamed, parsed and planned each time.
  animalByMac:
    'select "uid", "id", "mac", "sex", "active", "battery", "current_activity", "current_temperature", "reference_temperature", ' +
    '"reference_temperature_updated_at", "reference_temperature_window_days", "eartag_start", "father", "mother", "group_name", "node", ' +
    '"node_weight", "signal_strength", "watchdog_weight", "t", "suspicious", "health_score", "diagnosed", "last_sensor_t", "last_location_t", ' +
    '"created_at", "updated_at" from "animals" where "uid" = $1 and "mac" = $2',
  animalPage: 'select * from "animals" where "uid" = $1 order by "t" desc nulls last, "id" desc limit $2 offset $3',
  animalCount: 'select count(*) as "total" from "animals" where "uid" = $1',
  // The page's JSON, written by the database in pieces of 500 items (readings.pages.ts jsonItems), newest first, no time
  // bounds: the newest rows of the readings' two parts (issue 27), recent rows and packed hours, merged under the limit.
  sensorData: `SELECT array_to_string(page.items[k * 500 + 1 : (k + 1) * 500], ',') AS items,
           cardinality(page.items) AS count, page.edge
    FROM (SELECT array_agg(row_to_json(r)::text ORDER BY r.t DESC) AS items, min(r.t) AS edge
          FROM (SELECT * FROM ((SELECT "t", "c", "x", "y", "z" FROM "animal_sensor_readings"
      WHERE uid = $1 AND mac = $2  ORDER BY t DESC LIMIT $3)
    UNION ALL
    (SELECT * FROM (SELECT p.hour + u.dt AS t, "u"."c"::float8 / 100 AS "c", "u"."x"::float8 / 1000 AS "x", "u"."y"::float8 / 1000 AS "y", "u"."z"::float8 / 1000 AS "z" FROM (SELECT * FROM (SELECT p.*, sum(p.n) OVER (ORDER BY p.hour DESC) - p.n - first_value(p.n) OVER (ORDER BY p.hour DESC) AS before
             FROM (SELECT * FROM "animal_sensor_packed" p WHERE p.uid = $4 AND p.mac = $5
                   ORDER BY p.hour DESC LIMIT $6) p) h WHERE h.before < $7) p CROSS JOIN LATERAL unnest("p"."dt", "p"."c", "p"."x", "p"."y", "p"."z") AS u ("dt", "c", "x", "y", "z")) u
      WHERE true )) r
                ORDER BY t DESC LIMIT $8) r) page,
         generate_series(0, (cardinality(page.items) - 1) / 500) k
    ORDER BY k`,
  // The multi-row insert of ingestion, alone: no transaction, no owner check, no update of the animal.
  insertSensorData: `INSERT INTO "animal_sensor_readings" (uid, mac, "t", "c", "x", "y", "z")
    SELECT $1, $2, "r"."t", "r"."c", "r"."x", "r"."y", "r"."z"
    FROM unnest($3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::float8[]) AS r ("t", "c", "x", "y", "z")
    ON CONFLICT (uid, mac, t) DO NOTHING`,
}

const { query, close } = await connect()

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

const envelope = (data: unknown) => ({ success: true, data, timestamp: new Date().toISOString() })

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const [path = '', search = ''] = (req.url ?? '/').split('?', 2)
  const params = new URLSearchParams(search)
  const parts = path.split('/').map(decodeURIComponent)
  // /hello, /users/:uid/animals, /users/:uid/animals/:mac, /users/:uid/animals/:mac/sensordata
  if (path === '/hello')
    return send(res, 200, { success: true, message: 'hello', version: 'v1', timestamp: new Date().toISOString() })
  if (parts[1] !== 'users' || parts[3] !== 'animals') return send(res, 404, { success: false })
  const uid = parts[2]!
  const mac = parts[4]
  const limit = Number(params.get('limit') ?? 10)
  if (mac === undefined && req.method === 'GET') {
    const [page, count] = await Promise.all([query(SQL.animalPage, [uid, limit, 0]), query(SQL.animalCount, [uid])])
    const total = Number(count.rows[0]!.total)
    return send(res, 200, {
      ...envelope(page.rows),
      pagination: { page: 1, limit, total, totalPages: Math.ceil(total / limit) },
    })
  }
  if (mac !== undefined && parts.length === 5 && req.method === 'GET') {
    const { rows } = await query(SQL.animalByMac, [uid, mac])
    return rows[0] ? send(res, 200, envelope(rows[0])) : send(res, 404, { success: false })
  }
  if (mac !== undefined && parts[5] === 'sensordata' && req.method === 'GET') {
    const animal = await query(SQL.animalByMac, [uid, mac])
    if (!animal.rows[0]) return send(res, 404, { success: false })
    const { rows } = await query(SQL.sensorData, [uid, mac, limit, uid, mac, limit + 1, limit, limit])
    const text = `{"success":true,"data":[${rows.map((row) => String(row.items)).join(',')}],"timestamp":"${new Date().toISOString()}"}`
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
    return res.end(text)
  }
  if (mac !== undefined && parts[5] === 'sensordata' && req.method === 'POST') {
    const { readings } = JSON.parse(await readBody(req)) as {
      readings: { t: number; c: number; x: number; y: number; z: number }[]
    }
    const column = (name: 't' | 'c' | 'x' | 'y' | 'z') => readings.map((r) => r[name])
    const { affected } = await query(SQL.insertSensorData, [
      uid,
      mac,
      column('t'),
      column('c'),
      column('x'),
      column('y'),
      column('z'),
    ])
    return send(
      res,
      200,
      envelope({ received: readings.length, stored: affected, duplicates: readings.length - affected }),
    )
  }
  return send(res, 404, { success: false })
}

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  handle(req, res).catch((err: unknown) => {
    process.stderr.write(`bare server: ${String(err)}\n`)
    if (!res.headersSent) send(res, 500, { success: false })
  })
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`)
})
process.once('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => void close().then(() => process.exit(0)))
})
