// A farm for the event tests: an owner with a user token, a linked Pro integrator that may write (it sends
// readings), and animals with a reference temperature set as the daily job would.
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { eventSummary } from '../../src/modules/events/event-summaries.ts'
import { EVENT_LANGUAGES } from '../../src/modules/events/event-texts.ts'
import type { TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'

let macCounter = 0
export function nextMac(): string {
  macCounter++
  return `EE:0${process.pid % 10}:${(macCounter >> 8).toString(16).padStart(2, '0').toUpperCase()}:${(macCounter & 255).toString(16).padStart(2, '0').toUpperCase()}:00:01`
}

export async function eventsFarm(ctx: TestContext) {
  const user = await createUser(ctx)
  const integrator = await createIntegrator(ctx, { tier: 'pro', canWrite: true, linkTo: [user.uid] })
  const writer = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
  const owner = bearer((await userToken(ctx, user.email)).accessToken)
  const base = `/api/v1/users/${user.uid}`
  const request = (
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
    headers = owner,
  ) =>
    ctx.app.inject({
      method,
      url: `${base}${path}`,
      headers,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    })
  /** An animal whose reference temperature is `reference` (null: none yet). */
  const animal = async (reference: number | null = 38.0, mac = nextMac()) => {
    const res = await request('POST', '/animals', { MAC: mac, Sex: 'female', Group: 'Farrowing 2' }, writer)
    assert.equal(res.statusCode, 201, res.body)
    const created = res.json().data as { ID: string; MAC: string }
    await sql`UPDATE animals SET reference_temperature = ${reference} WHERE uid = ${user.uid} AND mac = ${mac}`.execute(
      ctx.database.db,
    )
    return created
  }
  /** Sends sensor readings of these temperatures, a minute apart from `start`. */
  const readings = async (mac: string, temperatures: number[], start: number) => {
    const rows = temperatures.map((c, i) => ({ t: start + i * 60_000, c, x: 0, y: 0, z: 1 }))
    const res = await request('POST', `/animals/${mac}/sensordata`, { readings: rows }, writer)
    assert.equal(res.statusCode, 200, res.body)
  }
  const list = async (query = '') => {
    const res = await request('GET', `/events${query}`)
    assert.equal(res.statusCode, 200, res.body)
    const page = res.json<{ data: Record<string, any>[]; pagination: { total: number } }>()
    // Every event the service derives says why in words, in each language (the farm app's line under its title);
    // events some tests store by hand carry no evidence.
    for (const event of page.data.filter((e) => Object.keys(e.evidence ?? {}).length > 0)) {
      for (const language of EVENT_LANGUAGES) {
        const why = eventSummary(event as { EventType: string }, language, (ms) => new Date(ms).toISOString())
        assert.ok(why, `${event.EventType} in ${language}: no summary of ${JSON.stringify(event.evidence)}`)
      }
    }
    return page
  }
  return { user, integrator, writer, owner, base, request, animal, readings, list }
}
