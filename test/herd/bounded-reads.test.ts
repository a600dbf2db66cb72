// The KPIs, the due lists and the herd list by cycle state read only what their day or period needs (each
// female's records from her last farrowing before it, and her culls): on farms with ten years of generated
// records, stray ones included, every answer through HTTP equals what the rules give on every record of every
// female (the full read), for periods and days recent, far in the past, before any record and random.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createHash } from 'node:crypto'
import { femalesWithEvents, type Female } from '../../src/modules/cycle/cycle.repository.ts'
import { CYCLE, cycleState, dateOf, type Day } from '../../src/modules/cycle/cycle.rules.ts'
import { dueListsOf } from '../../src/modules/herd/herd.routes.ts'
import { herdKpis, withBenchmarks } from '../../src/modules/herd/kpi.rules.ts'
import { prng } from '../../src/simulation/random.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createUser, userToken } from '../support/fixtures.ts'
import { day, seedLongHerd } from './long-herd.ts'

const TODAY = '2026-03-31'
const FIRST = day('2016-01-01')
const LAST = day('2026-06-30') // a few records dated after today: the KPIs of a past period read them
const GROUPS = ['Sows A', 'Sows B', 'Gilts']

let ctx: TestContext
const farms: { uid: string; headers: Record<string, string>; full: Female[] }[] = []

before(async () => {
  ctx = await createTestApp({ clock: () => Date.parse(`${TODAY}T10:00:00Z`) })
  for (const [i, noise] of [0, 0.05, 0.3].entries()) {
    const owner = await createUser(ctx)
    const headers = bearer((await userToken(ctx, owner.email)).accessToken)
    await seedLongHerd(ctx.database.db, owner.uid, {
      seed: `bounded-${i}`,
      females: 150,
      from: FIRST,
      to: LAST,
      groups: GROUPS,
      noise,
    })
    farms.push({ uid: owner.uid, headers, full: await femalesWithEvents(ctx.database.db, owner.uid) })
  }
})
after(() => ctx.close())

const call = async (farm: (typeof farms)[number], url: string) => {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${farm.uid}${url}`, headers: farm.headers })
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
  return res.json()
}
const ofGroup = (females: Female[], group: string | undefined) =>
  group === undefined ? females : females.filter((f) => f.group === group)

/** Periods (first and last day): recent, far in the past, before any record, across everything, random. */
function periods(seed: string): [Day, Day][] {
  const today = day(TODAY)
  const random = prng(createHash('sha256').update(seed).digest().readUInt32BE(0))
  const out: [Day, Day][] = [
    [today - 364, today],
    [today - 181, today],
    [day('2017-03-01'), day('2017-08-31')],
    [day('2015-01-01'), day('2015-12-31')],
    [day('2015-06-01'), day('2016-05-31')],
    [day('2016-02-01'), day('2016-02-01')],
    [today - 3659, today],
    [day('2025-11-01'), day('2026-06-30')],
  ]
  for (let i = 0; i < 6; i++) {
    const from = FIRST - 200 + Math.floor(random() * (LAST - FIRST + 200))
    out.push([from, Math.min(from + Math.floor(random() * 800), from + 3659)])
  }
  return out
}

describe('bounded reads on farms with ten years of records', () => {
  it('give the KPIs of the full read for every period, whole herd and group', async () => {
    let checked = 0
    for (const farm of farms) {
      for (const [from, to] of periods(farm.uid)) {
        for (const group of [undefined, 'Sows B']) {
          const query = `from=${dateOf(from)}&to=${dateOf(to)}${group ? `&group=${encodeURIComponent(group)}` : ''}`
          const got = (await call(farm, `/kpis?${query}`)).data
          const want = withBenchmarks(herdKpis(ofGroup(farm.full, group), { from, to }))
          assert.deepEqual(
            { ...got, from: undefined, to: undefined, group: undefined },
            {
              ...want,
              from: undefined,
              to: undefined,
              group: undefined,
              farrowingRate: {
                ...want.farrowingRate,
                servedFrom: dateOf(want.farrowingRate.servedFrom),
                servedTo: dateOf(want.farrowingRate.servedTo),
              },
            },
            query,
          )
          checked++
        }
      }
    }
    assert.equal(checked, farms.length * 14 * 2)
    // Not a vacuous comparison: the recent year counts matings and litters on every farm.
    const year = (await call(farms[0]!, '/kpis')).data
    assert.ok(year.returnRate.matings > 50 && year.bornAlivePerLitter.litters > 50, JSON.stringify(year))
  })

  it('give the due lists of the full read on any day, whole herd and group, any weanedDays', async () => {
    for (const farm of farms) {
      const random = prng(createHash('sha256').update(`due:${farm.uid}`).digest().readUInt32BE(0))
      const days = [day(TODAY), day('2018-05-17'), day('2015-12-01'), FIRST, LAST]
      for (let i = 0; i < 10; i++) days.push(FIRST + Math.floor(random() * (LAST - FIRST)))
      let listed = 0
      for (const date of days) {
        for (const [group, weanedDays] of [
          [undefined, undefined],
          ['Sows A', 3],
        ] as const) {
          const query = `date=${dateOf(date)}${group ? `&group=${encodeURIComponent(group)}` : ''}${weanedDays ? `&weanedDays=${weanedDays}` : ''}`
          const got = (await call(farm, `/due-lists?${query}`)).data
          const settings = { ...CYCLE, weanedNotServedDays: weanedDays ?? CYCLE.weanedNotServedDays }
          const want = dueListsOf(ofGroup(farm.full, group), date, settings)
          assert.deepEqual(got, { date: dateOf(date), weanedDays: settings.weanedNotServedDays, ...want }, query)
          listed += Object.values(want).reduce((sum, list) => sum + list.length, 0)
        }
      }
      assert.ok(listed > 20, `only ${listed} entries on ${farm.uid}'s due lists`)
    }
  })

  it('keep in the herd list by cycle state the females the full read puts in it', async () => {
    for (const farm of farms) {
      const states = new Map<string, string[]>()
      for (const f of farm.full) {
        const { state } = cycleState(f.events, day(TODAY), f.registered, CYCLE)
        states.set(state, [...(states.get(state) ?? []), f.mac].sort())
      }
      assert.ok(states.size >= 6, [...states.keys()].join())
      for (const state of ['gilt', 'served', 'pregnant', 'open', 'due-to-farrow', 'lactating', 'weaned', 'culled']) {
        const listed: string[] = []
        for (let page = 1; page === 1 || listed.length % 100 === 0; page++) {
          const body = await call(farm, `/animals?cycleState=${state}&limit=100&page=${page}&sortBy=MAC&sortOrder=asc`)
          if (body.data.length === 0) break
          listed.push(...body.data.map((a: { MAC: string }) => a.MAC))
        }
        assert.deepEqual(listed, states.get(state) ?? [], state)
      }
    }
  })
})
