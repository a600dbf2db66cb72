// A sow her records show open (a negative pregnancy check, or a return with no service since) is no longer scored as
// carrying that service: her heats are scored as an open sow's (due two cycles after the failed service), not a
// pregnant sow's, and no farrowing is expected from it. Records through the API, the job through the CLI,
// probabilities read back through the API.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createUser, userToken } from '../support/fixtures.ts'
import { cliInProcess } from '../support/cli.ts'
import { createIdSource } from '../../src/db/ids.ts'
import { insertAnimal } from '../../src/modules/animals/animals.repository.ts'
import { ingest } from '../../src/modules/readings/ingest.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const DAY_MS = 86_400_000
const SAMPLE_MS = 600_000
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

describe('a sow found open', () => {
  let uid: string
  let headers: Record<string, string>
  const now = Date.now()
  // Sows 0-3 rise to 2.5 times their usual activity over their last 20 hours; 4-11, most of their pen, stay as they
  // were (a rise the whole pen shares is taken away).
  const mac = (k: number) => `AA:CC:00:00:02:${String(k).padStart(2, '0')}`
  const post = async (k: number, collection: string, payload: object) => {
    const url = `/api/v1/users/${uid}/animals/${mac(k)}/${collection}`
    const res = await ctx.app.inject({ method: 'POST', url, headers, payload })
    assert.equal(res.statusCode, 201, res.body)
  }
  const latest = async (k: number, classificationType: 'heat' | 'birth') => {
    const url = `/api/v1/users/${uid}/animals/${mac(k)}/predictions/recent?classificationType=${classificationType}&limit=1`
    const res = await ctx.app.inject({ method: 'GET', url, headers })
    assert.equal(res.statusCode, 200, res.body)
    return (res.json().data as { results: { probability: number }[] }[])[0]!.results[0]!.probability
  }

  before(async () => {
    const user = await createUser(ctx)
    uid = user.uid
    headers = bearer((await userToken(ctx, user.email)).accessToken)
    const ids = createIdSource(() => now - 12 * DAY_MS)
    for (let k = 0; k < 12; k++) {
      await insertAnimal(ctx.database.db, uid, { MAC: mac(k), Sex: 'female', Group: 'Pen 1' }, ids)
      const rows = Array.from({ length: (10 * DAY_MS) / SAMPLE_MS }, (_, i) => {
        const rising = k < 4 && i * SAMPLE_MS < 20 * 3_600_000
        // Two of each hour's six samples moving, five while rising: every hour alike.
        const moving = i % 6 < (rising ? 5 : 2)
        return { t: now - i * SAMPLE_MS, c: 37.5, x: 0, y: 0, z: moving ? 1.4 : 1 }
      })
      await ingest(ctx.database.db, uid, mac(k), { kind: 'sensordata', rows }, now)
    }
    // Sows 0 and 1 served 112 days ago (a farrowing due); sow 1 scanned open 30 days after.
    for (const k of [0, 1]) await post(k, 'inseminations', { Boar: 'Duroc', StartDate: dayOf(now - 112 * DAY_MS) })
    await post(1, 'pregnancy-checks', { checkDate: dayOf(now - 82 * DAY_MS), result: 'open' })
    // Sows 2 and 3 served 45 days ago; sow 3 seen in heat again 21 days after, and not served since.
    for (const k of [2, 3]) await post(k, 'inseminations', { Boar: 'Duroc', StartDate: dayOf(now - 45 * DAY_MS) })
    await post(3, 'return-to-estrus', {
      returnDate: dayOf(now - 24 * DAY_MS),
      returnType: 'regular',
      daysSinceService: 21,
    })
    const run = await cliInProcess(ctx, ['jobs', 'predictions', '--user', uid])
    assert.equal(run.code, 0, run.stderr)
  })

  it('after a negative check: expects no farrowing from the service, and scores her heat', async () => {
    const [servedBirth, openBirth] = [await latest(0, 'birth'), await latest(1, 'birth')]
    const [servedHeat, openHeat] = [await latest(0, 'heat'), await latest(1, 'heat')]
    assert.ok(openBirth < servedBirth, `birth: found open ${openBirth}, served ${servedBirth}`)
    // Served 112 days ago, a heat is ruled out (a farrowing is due); found open, her rise may be one.
    assert.ok(openHeat > servedHeat, `heat: found open ${openHeat}, served ${servedHeat}`)
  })

  it('after a return with no service since: scores her heat as an open sow, not a pregnant one', async () => {
    const [servedHeat, returnedHeat] = [await latest(2, 'heat'), await latest(3, 'heat')]
    assert.ok(returnedHeat > servedHeat, `heat: returned ${returnedHeat}, served ${servedHeat}`)
  })
})
