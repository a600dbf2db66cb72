// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The second family of simulated herds: written apart from the cycle family, so the scorer can be measured on herds
// it was not tuned on. Its ground truth follows batch management (a batch farrows within a few days, in one room),
// and its confounders are there: loose and torn tags, fever, mixing, dropouts, gateway outages, feeding peaks.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  budgetAt,
  ethogramHerd,
  ethogramReadings,
  planEthogramAnimal,
  planEthogramFarm,
} from '../../src/simulation/ethogram-herd.ts'
import { summarizeHours } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { auc, poissonRate, reliability, wilson } from '../../src/simulation/statistics.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const start = Date.UTC(2026, 0, 5)
const window = { seed: 'etho-test', start, end: start + 150 * DAY }
const herd = ethogramHerd('etho-test', 120)
const plans = herd.map((a) => planEthogramAnimal(a, window))
const farm = planEthogramFarm(window)
const personal = { dayShare: 0.2, nightShare: 0.05 }

describe('the ethogram family', () => {
  it('manages sows in batches: a batch farrows within days of each other; gilts cycle without weanings', () => {
    const onsets = herd.flatMap((a, k) =>
      a.Group === 'Batch 1' ? plans[k]!.farrowings.filter((f) => f.onset > start).map((f) => f.onset) : [],
    )
    assert.ok(onsets.length >= 5, `${onsets.length}`)
    const first = Math.min(...onsets)
    assert.ok(
      onsets.filter((t) => t - first < 12 * DAY).length >= onsets.length / 2,
      'most of a batch farrows together',
    )
    const gilts = herd.flatMap((a, k) => (a.gilt ? [plans[k]!] : []))
    assert.ok(gilts.length > 5 && gilts.every((p) => p.records.weanings.every((w) => w > p.records.services[0]!)))
    assert.ok(gilts.some((p) => p.heats.length >= 2))
  })

  it('marks silent heats, weak nesters, and every confounder somewhere in the herd', () => {
    const all = plans.flatMap((p) => p.heats)
    assert.ok(all.some((h) => h.silent) && all.some((h) => !h.silent))
    assert.ok(all.every((h) => h.silent === h.rise < 0.1))
    assert.ok(plans.some((p) => p.farrowings.some((f) => f.weak)))
    for (const key of ['looseTag', 'fevers', 'mixing', 'dropouts', 'crated'] as const)
      assert.ok(
        plans.some((p) => p[key].length > 0),
        key,
      )
    assert.ok(farm.outages.length > 0 && farm.feedings.length >= 2)
  })

  it('nest building takes a share of the sow’s time before onset; a heat raises the active behaviours', () => {
    const k = plans.findIndex((p) => p.farrowings.some((f) => f.onset > start + 10 * DAY && !f.weak))
    const f = plans[k]!.farrowings.find((x) => x.onset > start + 10 * DAY && !x.weak)!
    const at = budgetAt(plans[k]!, farm, f.nestPeak, personal)
    assert.ok(at.weights.nest >= f.nestShare * 0.9, `${at.weights.nest}`)
    assert.equal(budgetAt(plans[k]!, farm, f.onset - 3 * DAY, personal).weights.nest, 0)
    const h = plans.flatMap((p) => p.heats.map((x) => ({ p, x }))).find(({ x }) => x.rise > 0.3)!
    const during = budgetAt(h.p, farm, h.x.onset + 12 * HOUR, personal).weights
    const without = budgetAt({ ...h.p, heats: [] }, farm, h.x.onset + 12 * HOUR, personal).weights
    assert.ok(during.explore > without.explore * 1.2)
  })

  it('sends nothing while a tag drops out, and a loose tag moves far more than the sow does', () => {
    const k = plans.findIndex((p) => p.looseTag.length > 0)
    const loose = plans[k]!.looseTag[0]!
    const from = loose.from - 2 * DAY
    const { sensor } = ethogramReadings(herd[k]!, { ...plans[k]!, dropouts: [{ from, to: from + 6 * HOUR }] }, farm, {
      seed: 'etho-test',
      start: from,
      end: loose.from + 2 * DAY,
      intervalMs: 120_000,
    })
    assert.ok(sensor.every((r) => r.t >= from + 6 * HOUR))
    const hours = summarizeHours(sensor, [])
    const mean = (a: number, b: number) => {
      const xs = hours.filter((h) => h.hour >= a && h.hour < b)
      return xs.reduce((s, h) => s + h.activity, 0) / xs.length
    }
    assert.ok(mean(loose.from, loose.from + 2 * DAY) > 1.5 * mean(from + 6 * HOUR, loose.from))
  })
})

describe('the evaluation statistics', () => {
  it('Wilson and Poisson intervals, AUC, reliability', () => {
    const [lo, hi] = wilson(8, 10)!
    assert.ok(Math.abs(lo - 0.49) < 0.01 && Math.abs(hi - 0.943) < 0.01)
    assert.equal(wilson(0, 0), null)
    const [plo, phi] = poissonRate(10, 5)!
    assert.ok(Math.abs(plo - 0.959) < 0.02 && Math.abs(phi - 3.678) < 0.03, `${plo} ${phi}`)
    assert.equal(auc([0.9, 0.8], [0.1, 0.2]), 1)
    assert.equal(auc([0.5], [0.5]), 0.5)
    const r = reliability([
      ...Array.from({ length: 40 }, (_, i) => [0.75, i < 30] as const),
      ...Array.from({ length: 10 }, () => [0.05, false] as const),
    ])
    assert.equal(r.bins.length, 2)
    assert.ok(Math.abs(r.meanAbsoluteError! - 0) < 1e-9)
  })
})
