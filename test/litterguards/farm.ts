// A farm for the device tests: an owner, a linked Pro integrator that may write and delete, and helpers
// to register devices and send their readings (t in Unix seconds).
import assert from 'node:assert/strict'
import type { TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'

let macCounter = 0
/** A device MAC no other test of the run uses (upper case). */
export function nextDeviceMac(): string {
  macCounter++
  const hex = (n: number) => n.toString(16).padStart(2, '0').toUpperCase()
  return `DE:C0:${hex(macCounter >> 8)}:${hex(macCounter & 255)}:00:01`
}

export interface DeviceReading {
  t: number
  c: number
  x: number
  y: number
  z: number
}

export async function deviceFarm(ctx: TestContext) {
  const user = await createUser(ctx)
  const integrator = await createIntegrator(ctx, { tier: 'pro', canWrite: true, canDelete: true, linkTo: [user.uid] })
  const headers = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
  const base = `/api/v1/users/${user.uid}/litterguards`
  const inject = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    payload?: unknown,
    extraHeaders: Record<string, string> = {},
  ) =>
    ctx.app.inject({
      method,
      url: `${base}${path}`,
      headers: { ...headers, ...extraHeaders },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    })
  const device = async (name = 'Farrowing pen', mac = nextDeviceMac()) => {
    const res = await inject('POST', '', { MAC: mac, Name: name })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as { MAC: string; Name: string }
  }
  /** Sends the rows in batches of at most 10,000. */
  const send = async (mac: string, rows: DeviceReading[]) => {
    for (let i = 0; i < rows.length; i += 10_000) {
      const res = await inject('POST', `/${mac}/sensordata`, { readings: rows.slice(i, i + 10_000) })
      assert.equal(res.statusCode, 200, res.body)
    }
  }
  return { user, integrator, headers, base, inject, device, send }
}

export async function storedReadings(ctx: TestContext, uid: string, mac: string): Promise<number> {
  const row = await ctx.database.db
    .selectFrom('litterguard_readings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('uid', '=', uid)
    .where('mac', '=', mac)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
