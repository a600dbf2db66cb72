// The device summary and analytics read the devices' hourly rollups (docs/litterguards.md#activity): the same
// figures as summing every reading up, on the same data, with a window that cuts hours and 10-minute buckets, late
// readings into packed and recent hours, before and after packing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertClose } from '../support/assertions.ts'
import { packReadings } from '../../src/jobs/packing.ts'
import { activityAggregates } from '../../src/modules/litterguards/litterguards.repository.ts'
import { baselineWindow, deviceWindow, unusualActivity } from '../../src/modules/litterguards/litterguards.rules.ts'
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

/** 8 days and a bit of a reading a minute (a few seconds off the minute), restless in the last `restlessMinutes`. */
function deviceRows(seed: number, restlessMinutes: number): DeviceReading[] {
  const now = NOW / 1000
  const rows: DeviceReading[] = []
  for (let t = now - 8 * DAY - 3 * 3600; t <= now + 5 * MINUTE; t += MINUTE) {
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
})
