// `node bench/herd-reads.ts` (DATABASE_URL for PostgreSQL, in a database of its own dropped after; else the
// embedded store): the herd's expensive reads on a large farm, FEMALES (2,000) sows with ten years of records
// (test/herd/long-herd.ts, about 200,000), each through HTTP ROUNDS (5) times after one warm-up: the KPIs of
// the year to today and of six months (what the farm app's Performance screen asks with the due lists), of a
// year far in the past, the due lists, and the herd list by cycle state. Median, min and max in ms.
// docs/herd-performance.md quotes a run.
import { createTestApp } from '../test/support/app.ts'
import { bearer, createUser, userToken } from '../test/support/fixtures.ts'
import { day, recordCount, seedLongHerd } from '../test/herd/long-herd.ts'

const FEMALES = Number(process.env.FEMALES ?? 2000)
const ROUNDS = Number(process.env.ROUNDS ?? 5)
const TODAY = '2026-03-31'

const ctx = await createTestApp({ clock: () => Date.parse(`${TODAY}T10:00:00Z`) })
try {
  const owner = await createUser(ctx)
  const headers = bearer((await userToken(ctx, owner.email)).accessToken)
  const seeded = Date.now()
  await seedLongHerd(ctx.database.db, owner.uid, {
    seed: 'herd-reads',
    females: FEMALES,
    from: day('2016-04-01'),
    to: day(TODAY),
    groups: ['Sows A', 'Sows B', 'Sows C', 'Sows D'],
    replacements: 0,
    cullRate: 0,
  })
  const records = await recordCount(ctx.database.db, owner.uid)
  console.log(
    `${process.env.DATABASE_URL ? 'postgres' : 'embedded'}: ${FEMALES} females, ${records} records ` +
      `(seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s)`,
  )
  const reads = {
    'kpis, the year to today': '/kpis',
    'kpis, six months to today': '/kpis?from=2025-10-01&to=2026-03-31',
    'kpis, 2017': '/kpis?from=2017-01-01&to=2017-12-31',
    'due lists': '/due-lists',
    'animals?cycleState=lactating': '/animals?cycleState=lactating',
  }
  for (const [name, url] of Object.entries(reads)) {
    const times: number[] = []
    for (let i = 0; i <= ROUNDS; i++) {
      const started = performance.now()
      const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${owner.uid}${url}`, headers })
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`)
      if (i > 0) times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    const ms = (t: number) => Math.round(t)
    console.log(`${name}: median ${ms(times[times.length >> 1]!)} ms (${ms(times[0]!)}-${ms(times.at(-1)!)})`)
  }
} finally {
  await ctx.close()
}
