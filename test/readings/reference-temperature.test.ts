import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, usingRealServers, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'
import {
  DAY_MS,
  MIN_VALID_SAMPLES,
  WINDOW_MS,
  hasFullWindow,
  inWindow,
  isValidSample,
  lastUtcMidnight,
  median,
  medianOfHours,
  nextUtcMidnight,
  referenceFromReadings,
  referenceFromStats,
  windowHours,
} from '../../src/jobs/reference-temperature.rules.ts'
import {
  REFERENCE_TEMPERATURE_LOCK,
  refreshReferenceTemperatures,
  runScheduledRefresh,
} from '../../src/jobs/reference-temperature.ts'
import { withSingleRunner } from '../../src/jobs/single-runner.ts'
import { cliInProcess } from '../support/cli.ts'
import { insertAnimal, findAnimalByMac } from '../../src/modules/animals/animals.repository.ts'
import { createIdSource } from '../../src/db/ids.ts'
import { ingest } from '../../src/modules/readings/ingest.ts'
import { packReadings } from '../../src/jobs/packing.ts'
import { openDatabase } from '../../src/db/database.ts'

const NOW = Date.UTC(2026, 2, 15, 0, 0, 0)
const MINUTE = 60_000

describe('reference temperature rules', () => {
  it('counts samples from 25.0 to 42.0 °C as valid, both ends included', () => {
    assert.equal(isValidSample(25.0), true)
    assert.equal(isValidSample(42.0), true)
    assert.equal(isValidSample(37.4), true)
    assert.equal(isValidSample(24.99), false)
    assert.equal(isValidSample(42.01), false)
    assert.equal(isValidSample(0), false)
  })

  it('takes the 7 days of whole hours before the last whole hour, [hour - 7 days, hour)', () => {
    assert.equal(inWindow(NOW - 1, NOW), true)
    assert.equal(inWindow(NOW - WINDOW_MS, NOW), true)
    assert.equal(inWindow(NOW - WINDOW_MS - 1, NOW), false)
    assert.equal(inWindow(NOW, NOW), false)
    assert.deepEqual(windowHours(NOW + 59 * MINUTE), { from: NOW - WINDOW_MS, to: NOW })
    assert.equal(inWindow(NOW + MINUTE, NOW + 59 * MINUTE), false, 'the hour in progress is not in it')
  })

  it("takes the median of the samples counted at their hour's mean", () => {
    assert.equal(medianOfHours([]), null)
    assert.equal(
      medianOfHours([
        { samples: 3, mean: 38 },
        { samples: 2, mean: 36 },
      ]),
      38,
    )
    // An even count: the mean of the middle two, here in two hours.
    assert.equal(
      medianOfHours([
        { samples: 2, mean: 38 },
        { samples: 2, mean: 36 },
      ]),
      37,
    )
    // Each hour's samples on one side of the median: the samples' own median (50 at 37, 50 at 38).
    assert.equal(
      medianOfHours([
        { samples: 20, mean: 38 },
        { samples: 50, mean: 37 },
        { samples: 30, mean: 38 },
      ]),
      37.5,
    )
    assert.equal(
      medianOfHours([
        { samples: 1, mean: 40 },
        { samples: 0, mean: 10 },
        { samples: 1, mean: 39 },
        { samples: 1, mean: 41 },
      ]),
      40,
    )
  })

  it('needs the first reading at least 7 days back', () => {
    assert.equal(hasFullWindow(NOW - 7 * DAY_MS, NOW), true)
    assert.equal(hasFullWindow(NOW - 7 * DAY_MS + 1, NOW), false)
    assert.equal(hasFullWindow(NOW - 30 * DAY_MS, NOW), true)
    assert.equal(hasFullWindow(null, NOW), false)
  })

  it('computes the median of odd and even counts, without reordering its input', () => {
    const values = [38, 36, 37]
    assert.equal(median(values), 37)
    assert.deepEqual(values, [38, 36, 37])
    assert.equal(median([36, 38, 37, 39]), 37.5)
    assert.equal(median([42]), 42)
    assert.equal(median([]), null)
  })

  it('is null under 100 valid samples, the rounded median from 100 on', () => {
    const first = NOW - 8 * DAY_MS
    assert.equal(
      referenceFromStats({ firstReadingT: first, validSamples: MIN_VALID_SAMPLES - 1, validMedian: 37.2 }, NOW),
      null,
    )
    assert.equal(
      referenceFromStats({ firstReadingT: first, validSamples: MIN_VALID_SAMPLES, validMedian: 37.2 }, NOW),
      37.2,
    )
    assert.equal(referenceFromStats({ firstReadingT: first, validSamples: 5000, validMedian: 37.23456 }, NOW), 37.23)
    assert.equal(
      referenceFromStats({ firstReadingT: NOW - 7 * DAY_MS + 1, validSamples: 5000, validMedian: 37.2 }, NOW),
      null,
    )
    assert.equal(referenceFromStats({ firstReadingT: first, validSamples: 0, validMedian: null }, NOW), null)
  })

  it('over raw readings: excludes out-of-range samples and samples outside the window from the median and the count', () => {
    const first = { t: NOW - 8 * DAY_MS, c: 41 } // counts for the 7 days of data; outside the window
    // 50 samples at 38 in the last hour, 50 at 37 in the hour before: the median of the samples, 37.5.
    const valid = Array.from({ length: 100 }, (_, i) => ({
      t: i < 50 ? NOW - (i + 1) * MINUTE : NOW - 3_600_000 - (i - 49) * MINUTE,
      c: i < 50 ? 38 : 37,
    }))
    const glitches = [
      { t: NOW - 1000, c: 0 },
      { t: NOW - 2000, c: 24.99 },
      { t: NOW - 3000, c: 42.01 },
      { t: NOW - 4000, c: 85 },
    ]
    assert.equal(referenceFromReadings([first, ...valid, ...glitches], NOW), 37.5)
    // 99 valid samples plus glitches: still too few.
    assert.equal(referenceFromReadings([first, ...valid.slice(1), ...glitches], NOW), null)
    // The edge values are valid samples: 49 at 38 and 42.0 in the last hour (mean 38.08), 49 at 37 and 25.0 in the
    // hour before (36.76): the middle two samples are one of each.
    const edges = [...valid.slice(1, 99), { t: NOW - 5000, c: 42.0 }, { t: NOW - 3_600_000 - 5000, c: 25.0 }]
    assert.equal(referenceFromReadings([first, ...edges], NOW), 37.42)
    // Samples at the hour in progress are not in the window.
    assert.equal(referenceFromReadings([first, ...valid.slice(1), { t: NOW, c: 37 }], NOW), null)
    // Under 7 days of data.
    assert.equal(referenceFromReadings(valid, NOW), null)
  })

  it('schedules at 00:00 UTC', () => {
    assert.equal(nextUtcMidnight(Date.UTC(2026, 2, 15, 13, 5)), Date.UTC(2026, 2, 16))
    assert.equal(nextUtcMidnight(Date.UTC(2026, 2, 15)), Date.UTC(2026, 2, 16), 'strictly after')
    assert.equal(nextUtcMidnight(Date.UTC(2026, 11, 31, 23, 59, 59, 999)), Date.UTC(2027, 0, 1))
    assert.equal(lastUtcMidnight(Date.UTC(2026, 2, 15, 13, 5)), Date.UTC(2026, 2, 15))
    assert.equal(lastUtcMidnight(Date.UTC(2026, 2, 15)), Date.UTC(2026, 2, 15))
  })
})

describe('reference temperature job', () => {
  let ctx: TestContext
  before(async () => {
    ctx = await createTestApp({ clock: () => NOW })
  })
  after(() => ctx.close())

  /** An animal with readings every `stepMin` minutes from `days` days before NOW, temperatures from tempAt. */
  async function animalWith(uid: string, mac: string, days: number, stepMin: number, tempAt: (i: number) => number) {
    await insertAnimal(
      ctx.database.db,
      uid,
      { MAC: mac, Sex: 'female' },
      createIdSource(() => NOW - 30 * DAY_MS),
    )
    const count = Math.floor((days * DAY_MS) / (stepMin * MINUTE)) + 1
    const rows = Array.from({ length: count }, (_, i) => ({
      t: NOW - days * DAY_MS + i * stepMin * MINUTE,
      c: tempAt(i),
      x: 0,
      y: 0,
      z: 1,
    }))
    for (let i = 0; i < rows.length; i += 10_000)
      await ingest(ctx.database.db, uid, mac, { kind: 'sensordata', rows: rows.slice(i, i + 10_000) }, NOW)
    return rows
  }

  it('agrees with the rules over the same readings, and sets value, time and window on every animal', async () => {
    const { uid } = await createUser(ctx)
    // Diurnal-ish values with glitches; 9 days at 10-minute steps.
    const temp = (i: number) => (i % 97 === 0 ? 0 : i % 89 === 0 ? 60 : 36 + ((i * 7) % 30) / 10)
    const full = await animalWith(uid, 'AA:00:00:00:00:01', 9, 10, temp)
    const young = await animalWith(uid, 'AA:00:00:00:00:02', 6, 10, temp) // under 7 days of data
    const sparse = await animalWith(uid, 'AA:00:00:00:00:03', 8, 120, temp) // 97 samples in the window
    await insertAnimal(
      ctx.database.db,
      uid,
      { MAC: 'AA:00:00:00:00:04', Sex: 'male' },
      createIdSource(() => NOW),
    ) // no readings

    const outcome = await refreshReferenceTemperatures(ctx.database.db, { now: NOW, uid })
    assert.deepEqual(outcome, { users: 1, animals: 4, withReference: 1 })
    const expectedFull = referenceFromReadings(full, NOW)
    assert.ok(expectedFull !== null && expectedFull >= 36 && expectedFull <= 39)
    assert.equal(referenceFromReadings(young, NOW), null)
    assert.equal(referenceFromReadings(sparse, NOW), null)
    for (const [mac, value] of [
      ['AA:00:00:00:00:01', expectedFull],
      ['AA:00:00:00:00:02', null],
      ['AA:00:00:00:00:03', null],
      ['AA:00:00:00:00:04', null],
    ] as const) {
      const row = (await findAnimalByMac(ctx.database.db, uid, mac))!
      assert.equal(row.reference_temperature, value, mac)
      assert.equal(row.reference_temperature_updated_at, NOW, mac)
      assert.equal(row.reference_temperature_window_days, 7, mac)
    }
  })

  it('reads the hourly rollups: the rule over every reading, through packing and readings arriving late', async () => {
    const { uid } = await createUser(ctx)
    const mac = 'AD:00:00:00:00:01'
    await insertAnimal(
      ctx.database.db,
      uid,
      { MAC: mac, Sex: 'female' },
      createIdSource(() => NOW - 30 * DAY_MS),
    )
    // 8 days a reading every 7 minutes (a few seconds off), a day's cycle, glitches; every 5th held back.
    const rows = Array.from({ length: Math.floor((8 * DAY_MS) / (7 * MINUTE)) }, (_, i) => ({
      t: NOW - 8 * DAY_MS + i * 7 * MINUTE + (i % 13) * 1000,
      c: i % 61 === 0 ? 80 : Math.round((37.5 + Math.sin(i / 30) + ((i * 7) % 11) / 20) * 100) / 100,
      x: 0,
      y: 0,
      z: 1,
    }))
    const send = (batch: typeof rows) =>
      ingest(ctx.database.db, uid, mac, { kind: 'sensordata', rows: batch }, NOW + 5 * MINUTE)
    await send(rows.filter((_, i) => i % 5 !== 0))
    await packReadings(ctx.database.db, { now: NOW, uid })
    await send(rows.filter((_, i) => i % 5 === 0))
    const expected = referenceFromReadings(rows, NOW)
    assert.ok(expected !== null && expected > 37 && expected < 39)
    await refreshReferenceTemperatures(ctx.database.db, { now: NOW, uid })
    assert.equal((await findAnimalByMac(ctx.database.db, uid, mac))!.reference_temperature, expected)
    await packReadings(ctx.database.db, { now: NOW + 2 * 3_600_000, uid })
    // On demand mid-hour: the same whole hours.
    await refreshReferenceTemperatures(ctx.database.db, { now: NOW + 30 * MINUTE, uid })
    assert.equal((await findAnimalByMac(ctx.database.db, uid, mac))!.reference_temperature, expected)
  })

  it('shows through the API as ReferenceTemperature, ReferenceTemperatureUpdatedAt and ReferenceTemperatureWindowDays', async () => {
    const { uid } = await createUser(ctx)
    await animalWith(uid, 'AB:00:00:00:00:01', 8, 30, () => 37.25)
    await refreshReferenceTemperatures(ctx.database.db, { now: NOW, uid })
    const integrator = await createIntegrator(ctx, { tier: 'pro', linkTo: [uid] })
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${uid}/animals/search?mac=AB:00:00:00:00:01`,
      headers: bearer((await integratorToken(ctx, integrator.uid)).accessToken),
    })
    const animal = res.json().data[0]
    assert.equal(animal.ReferenceTemperature, 37.25)
    assert.equal(animal.ReferenceTemperatureUpdatedAt, NOW)
    assert.equal(animal.ReferenceTemperatureWindowDays, 7)
  })

  it('the scheduled run skips animals another process already refreshed for that midnight; an on-demand run does them all', async () => {
    const { uid } = await createUser(ctx)
    await animalWith(uid, 'AC:00:00:00:00:01', 8, 30, () => 38)
    const first = await runScheduledRefresh(ctx.app, NOW)
    assert.ok(first && first.animals >= 1)
    const second = await runScheduledRefresh(ctx.app, NOW)
    assert.deepEqual(second, { users: 0, animals: 0, withReference: 0 })
    const onDemand = await refreshReferenceTemperatures(ctx.database.db, { now: NOW, uid })
    assert.equal(onDemand.animals, 1)
  })

  it('the scheduled run and the CLI take the one single-runner path: both skip while another runner has the job', async () => {
    let release!: () => void
    const held = withSingleRunner(
      ctx.database,
      REFERENCE_TEMPERATURE_LOCK,
      () => new Promise<void>((resolve) => (release = resolve)),
    )
    try {
      assert.equal(await runScheduledRefresh(ctx.app, NOW), undefined)
      const res = await cliInProcess(ctx, ['jobs', 'reference-temperature'])
      assert.equal(res.code, 0, res.stderr)
      assert.deepEqual(res.json(), {
        job: 'reference-temperature',
        skipped: 'another process is refreshing reference temperatures now',
      })
    } finally {
      release()
      await held
    }
    assert.equal((await cliInProcess(ctx, ['jobs', 'reference-temperature'])).json().skipped, undefined)
  })

  it(
    'runs in one process only: the advisory lock refuses a second holder',
    { skip: !usingRealServers && 'needs two database sessions (real-server mode)' },
    async () => {
      const other = await openDatabase(ctx.config)
      try {
        const held = await withSingleRunner(ctx.database, REFERENCE_TEMPERATURE_LOCK, async () => {
          return withSingleRunner(other, REFERENCE_TEMPERATURE_LOCK, async () => 'ran')
        })
        assert.equal(held, undefined, 'the second session must not get the lock while the first holds it')
        assert.equal(
          await withSingleRunner(other, REFERENCE_TEMPERATURE_LOCK, async () => 'ran'),
          'ran',
          'released after the first',
        )
        const { rows } = await sql<{
          n: number
        }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = ${REFERENCE_TEMPERATURE_LOCK}`.execute(
          ctx.database.db,
        )
        assert.equal(Number(rows[0]!.n), 0)
      } finally {
        await other.close()
      }
    },
  )
})
