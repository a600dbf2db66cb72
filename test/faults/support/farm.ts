// A farm for the fault tests, written into the store before the service starts (the embedded store
// admits one process): a user, a linked Pro integrator that may write, and its token and animal once
// the service runs.
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { loadConfig } from '../../../src/config.ts'
import { openDatabase } from '../../../src/db/database.ts'
import { migrateToLatest } from '../../../src/db/migrate.ts'
import { insertIntegrator, link } from '../../../src/modules/integrators/integrators.repository.ts'
import { insertUser } from '../../../src/modules/users/users.repository.ts'
import { TEST_JWT_SECRET } from '../../support/app.ts'
import { call, type ServiceProcess } from './service.ts'
import type { Agent } from 'node:http'

export interface Farm {
  uid: string
  integratorUid: string
}

/** The store's environment: DATABASE_URL, or DATA_DIR for the embedded store. */
export type StoreEnv = { DATABASE_URL: string } | { DATA_DIR: string }

function storeConfig(store: StoreEnv) {
  return loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, ...store })
}

export async function seedFarm(store: StoreEnv): Promise<Farm> {
  const database = await openDatabase(storeConfig(store))
  try {
    await migrateToLatest(database.db)
    const suffix = randomBytes(5).toString('hex')
    const uid = `farm-${suffix}`
    const integratorUid = `int-${suffix}`
    await insertUser(database.db, {
      uid,
      email: `${uid}@farm.example`,
      name: `Farm ${suffix}`,
      language: 'en',
      bd_user: false,
      admin: false,
      inactive: false,
      password_hash: null,
    })
    await insertIntegrator(database.db, {
      uid: integratorUid,
      email: `${integratorUid}@vendor.example`,
      name: `Vendor ${suffix}`,
      tier: 'pro',
      is_active: true,
      can_read: true,
      can_write: true,
      can_delete: false,
      client_secret_hash: null,
    })
    await link(database.db, uid, integratorUid, 'operator')
    return { uid, integratorUid }
  } finally {
    await database.close()
  }
}

/** The integrator's bearer header, from the running service. */
export async function farmHeaders(agent: Agent, service: ServiceProcess, farm: Farm): Promise<Record<string, string>> {
  const res = await call(agent, service.port, 'POST', '/api/v1/tokens', { body: { integratorUID: farm.integratorUid } })
  if (res.status !== 200) throw new Error(`POST /tokens: ${res.status} ${JSON.stringify(res.body)}`)
  return { authorization: `Bearer ${res.body.data.accessToken as string}` }
}

/** A new animal of the farm through the API; returns its MAC. */
export async function createAnimal(
  agent: Agent,
  service: ServiceProcess,
  farm: Farm,
  headers: Record<string, string>,
): Promise<string> {
  const mac = Array.from(randomBytes(6), (b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':')
  const res = await call(agent, service.port, 'POST', `/api/v1/users/${farm.uid}/animals`, {
    headers,
    body: { MAC: mac, Sex: 'female' },
  })
  if (res.status !== 201) throw new Error(`POST animals: ${res.status} ${JSON.stringify(res.body)}`)
  return mac
}

/** The timestamps of a tag's sensor readings in both parts, recent and packed (a reading in both shows twice). */
export function sensorTimesSql(uid: string, mac: string): string {
  return `SELECT t FROM animal_sensor_readings WHERE uid = '${uid}' AND mac = '${mac}'
    UNION ALL SELECT p.hour + u.dt FROM animal_sensor_packed p CROSS JOIN LATERAL unnest(p.dt) AS u (dt)
    WHERE p.uid = '${uid}' AND p.mac = '${mac}' ORDER BY 1`
}

/** The timestamps of a tag's stored sensor readings, read from the store while no service holds it. */
export async function storedReadingTimes(store: StoreEnv, farm: Farm, mac: string): Promise<number[]> {
  const database = await openDatabase(storeConfig(store))
  try {
    const { rows } = await sql<{ t: number }>`${sql.raw(sensorTimesSql(farm.uid, mac))}`.execute(database.db)
    return rows.map((r) => Number(r.t))
  } finally {
    await database.close()
  }
}

/** How many of a tag's sensor readings are in the packed part. */
export async function packedReadings(store: StoreEnv, farm: Farm, mac: string): Promise<number> {
  const database = await openDatabase(storeConfig(store))
  try {
    const { rows } = await sql<{
      n: number
    }>`SELECT coalesce(sum(n), 0)::int AS n FROM animal_sensor_packed WHERE uid = ${farm.uid} AND mac = ${mac}`.execute(
      database.db,
    )
    return Number(rows[0]!.n)
  } finally {
    await database.close()
  }
}
