// The device summary and analytics read the devices' hourly rollups (docs/litterguards.md#activity): the same
// figures as summing every reading up, on the same data, with a window that cuts hours and 10-minute buckets, late
// readings into packed and recent hours, before and after packing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertClose } from '../support/assertions.ts'
import { packReadings } from '../../src/jobs/packing.ts'
import { activityAggregates, summaryBuckets } from '../../src/modules/litterguards/litterguards.repository.ts'
import {
  baselineWindow,
  deviceWindow,
  summaryWindow,
  unusualActivity,
} from '../../src/modules/litterguards/litterguards.rules.ts'
import { TIME_RANGES } from '../../src/modules/readings/readings.rules.ts'
import { deviceFarm, type DeviceReading } from './farm.ts'

// Neither on an hour nor on 10 minutes: the windows cut both.
const NOW = (Math.floor(Date.now() / 3_600_000) * 3600 - 3 * 3600 + 37 * 60 + 13) * 1000
const MINUTE = 60
const DAY = 86_400

let ctx: TestContext
before(async () => {
  ctx = await createTestApp({ clock: () => NOW })
})
after(() => ctx.close())

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

/**
 * 8 days and a bit of a reading every 2 minutes (a few seconds off the minute), restless in the last
 * `restlessMinutes`: every 10-minute bucket and every hour has readings, late ones too.
 */
function deviceRows(seed: number, restlessMinutes: number): DeviceReading[] {
  const now = NOW / 1000
  const rows: DeviceReading[] = []
  for (let t = now - 8 * DAY - 3 * 3600; t <= now + 5 * MINUTE; t += 2 * MINUTE) {
    const i = (t - now) / MINUTE + seed
    const restless = t > now - restlessMinutes * MINUTE
    const stir = restless ? 0.4 : 0.05 * Math.abs(Math.sin(i / 17))
    rows.push({
      t: t + (Math.abs(i) % 5),
      c: round(32 + Math.sin(i / 300), 2),
      x: round(stir * Math.cos(i), 3),
      y: round(stir * Math.sin(i * 1.3), 3),
      z: round(1 + stir * Math.sin(i * 0.7), 3),
    })
  }
  return rows
}

describe('litter-device activity from the rollups', () => {
  it('equals every reading summed up, for each time range and the summary, through late readings and packing', async () => {
    const f = await deviceFarm(ctx)
    const restless = await f.device('Pen 1')
    const quiet = await f.device('Pen 2')
    const idle = await f.device('Pen 3')
    const [a, b] = [deviceRows(0, 40), deviceRows(1000, 0)]
    // Every 7th reading held back: they arrive late, after packing.
    await f.send(
      restless.MAC,
      a.filter((_, i) => i % 7 !== 0),
    )
    await f.send(quiet.MAC, b)

    const compare = async (stage: string) => {
      for (const range of TIME_RANGES) {
        const window = deviceWindow(range, NOW)
        const baselineStart = baselineWindow(window).start
        const rolled = await activityAggregates(ctx.database.withoutTimeouts, f.user.uid, window, baselineStart)
        const raw = await activityAggregates(
          ctx.database.withoutTimeouts,
          f.user.uid,
          window,
          baselineStart,
          undefined,
          {
            rollups: false,
          },
        )
        assert.equal(rolled.length, 3)
        assertClose(raw, rolled, `${stage} ${range}`)
      }
      const summary = (await f.inject('GET', '/summary')).json().data
      const day = deviceWindow('24h', NOW)
      const raw = await activityAggregates(
        ctx.database.withoutTimeouts,
        f.user.uid,
        day,
        baselineWindow(day).start,
        undefined,
        {
          rollups: false,
        },
      )
      assert.equal(summary.devicesWithUnusualActivity, raw.filter(unusualActivity).length, stage)
      const analytics = (await f.inject('GET', `/${restless.MAC}/analytics?timeRange=24h`)).json().data
      const mine = raw.find((r) => r.mac === restless.MAC)!
      assertClose(mine.averageTemperature, analytics.averageTemperature, `${stage} analytics`)
      assert.equal(analytics.dataPointsCount, mine.count)
      return { summary, analytics }
    }

    await compare('recent')
    await packReadings(ctx.database.db, { now: NOW })
    await compare('packed')
    await f.send(
      restless.MAC,
      a.filter((_, i) => i % 7 === 0),
    )
    const { summary, analytics } = await compare('late readings')
    await packReadings(ctx.database.db, { now: NOW })
    await compare('late readings packed')
    // The restless pen is unusual and high; the quiet one is not; the idle one has nothing to say.
    assert.equal(summary.devicesWithUnusualActivity, 1)
    assert.equal(analytics.unusualActivityDetected, true)
    assert.equal(analytics.activityLevel, 'high')
    const idleAnalytics = (await f.inject('GET', `/${idle.MAC}/analytics?timeRange=7d`)).json().data
    assert.equal(idleAnalytics.dataPointsCount, 0)
    assert.equal(idleAnalytics.averageTemperature, null)
  })

  it("gives the summary the buckets of every reading summed up over its window's whole 10-minute buckets", async () => {
    const f = await deviceFarm(ctx)
    const restless = await f.device('Pen 1')
    const quiet = await f.device('Pen 2')
    const late = await f.device('Pen 3')
    const [a, b, c] = [deviceRows(0, 40), deviceRows(1000, 0), deviceRows(2000, 6)]
    await f.send(
      restless.MAC,
      a.filter((_, i) => i % 5 !== 0),
    )
    await f.send(quiet.MAC, b)
    await f.send(late.MAC, c)
    // NOW is 37 min 13 s into an hour: the window is the 24 hours before its last whole 10 minutes, the baseline
    // the 7 days before that; neither starts on an hour.
    const span = summaryWindow(NOW)
    assert.equal(span.endBefore, Math.floor(NOW / 600_000) * 600)
    assert.equal(span.start % 3600, 30 * MINUTE)
    const compare = async (stage: string) => {
      const buckets = await summaryBuckets(ctx.database.withoutTimeouts, f.user.uid, span)
      const raw = await activityAggregates(
        ctx.database.withoutTimeouts,
        f.user.uid,
        { start: span.start, end: span.endBefore - 1 },
        span.baselineStart,
        undefined,
        { rollups: false },
      )
      assert.equal(buckets.length, 3)
      raw.forEach((r, i) => {
        const mine = buckets[i]!
        assert.equal(mine.mac, r.mac, stage)
        assert.equal(mine.baselineBuckets, r.baselineBuckets, stage)
        assertClose(mine.baselineMean, r.baselineMean, `${stage} baseline mean`)
        assertClose(mine.baselineSd, r.baselineSd, `${stage} baseline sd`)
        assert.deepEqual(mine.windowBuckets, r.windowBuckets, stage)
        assert.equal(unusualActivity(mine), unusualActivity(r), stage)
      })
      const summary = (await f.inject('GET', '/summary')).json().data
      assert.equal(summary.devicesWithUnusualActivity, raw.filter(unusualActivity).length, stage)
      return summary.devicesWithUnusualActivity as number
    }
    await compare('recent')
    await packReadings(ctx.database.db, { now: NOW })
    await compare('packed')
    await f.send(
      restless.MAC,
      a.filter((_, i) => i % 5 === 0),
    )
    await compare('late readings')
    await packReadings(ctx.database.db, { now: NOW })
    // Restless for 40 minutes: unusual. Restless for the last 6 minutes only, in the 10 minutes not yet whole: not
    // yet in the summary's window.
    assert.equal(await compare('late readings packed'), 1)
  })
})
