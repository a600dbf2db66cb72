// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The ground truth the scorer is measured against: the simulator's plans follow the physiology the rules
// start from (production cycles, nest building, heats, lameness) and carry the confounders (hot days, late
// feedings, tag dropouts); the evaluation counts alarms against them, and a plain threshold fares worse.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  physiologyAt,
  planAnimal,
  planFarm,
  simulateReadings,
  simulatedHerd,
  type FarmPlan,
} from '../../src/simulation/herd-simulator.ts'
import type { AnimalPlan } from '../../src/simulation/herd-plan.ts'
import { alarmsOf, evaluatePredictions } from '../../src/simulation/evaluation.ts'
import { isotonicKnots } from '../../src/simulation/statistics.ts'
import { planRecords } from '../../src/simulation/herd-records.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const start = Date.UTC(2026, 0, 5)
const window = { seed: 'ground-truth', start, end: start + 120 * DAY }
const herd = simulatedHerd('ground-truth', 40)
const farm = planFarm(window)
const plans = herd.map((animal) => planAnimal(animal, window))
const sows = plans.filter((_, i) => herd[i]!.Sex === 'female')
const quietFarm: FarmPlan = { lateFeedings: new Map(), hotDays: new Set(), weather: new Map() }
const days = (ms: number) => ms / DAY

describe("the simulator's production cycle", () => {
  it('farrows 113-117 days after the service that held, weans 21-28 days later, and comes on heat 3.5-6.5 days after weaning', () => {
    let farrowings = 0
    for (const plan of sows) {
      for (const f of plan.farrowings) {
        const service = plan.services.filter((s) => s < f.onset).at(-1)
        if (service !== undefined) {
          assert.ok(days(f.onset - service) >= 113 && days(f.onset - service) <= 117, `${days(f.onset - service)}`)
          farrowings++
        }
        const crate = plan.crated.find((c) => f.onset > c.from && f.onset < c.to)!
        assert.ok(
          days(f.onset - crate.from) >= 3 && days(f.onset - crate.from) <= 7,
          'moved to the crate 3-7 days before',
        )
        assert.ok(days(crate.to - f.onset) >= 21 && days(crate.to - f.onset) <= 28 && plan.weanings.includes(crate.to))
      }
      for (const weaning of plan.weanings) {
        const heat = plan.heats.find((h) => h.onset > weaning)
        if (heat) assert.ok(days(heat.onset - weaning) >= 3.5 && days(heat.onset - weaning) <= 6.5)
      }
      for (const service of plan.services)
        assert.ok(
          plan.heats.some((h) => service >= h.onset && service <= h.onset + DAY),
          'served in heat',
        )
    }
    assert.ok(farrowings > 10, `${farrowings}`)
  })

  it('gives boars no reproductive episodes', () => {
    const boars = plans.filter((_, i) => herd[i]!.Sex === 'male')
    assert.ok(
      boars.length > 0 &&
        boars.every((p) => p.farrowings.length === 0 && p.heats.length === 0 && p.services.length === 0),
    )
  })
})

describe('the simulated physiology', () => {
  /** How a plan's episodes change the state at t: the ratio of activity with them to activity without them. */
  const effect = (plan: AnimalPlan, without: Partial<AnimalPlan>, t: number) =>
    physiologyAt(plan, quietFarm, t).activity / physiologyAt({ ...plan, ...without }, quietFarm, t).activity

  it("nest building lasts 14-17 h and peaks nestPeakLeadMs before farrowing onset, at the sow's peak share", () => {
    for (const f of sows.flatMap((p) => p.farrowings.map((f) => ({ f, p }))).slice(0, 10)) {
      const { f: farrowing, p } = f
      const restless = (t: number) => physiologyAt(p, quietFarm, t).restless
      let peakAt = 0
      let active = 0
      for (let t = farrowing.onset - 30 * HOUR; t < farrowing.onset; t += 6 * 60_000) {
        if (restless(t) > restless(peakAt)) peakAt = t
        if (restless(t) > 0) active += 6 * 60_000
      }
      assert.ok(Math.abs(farrowing.onset - peakAt - farrowing.nestPeakLeadMs) <= 0.1 * HOUR)
      assert.ok(Math.abs(restless(peakAt) - farrowing.nestPeakShare) < 0.01)
      assert.ok(active / HOUR >= 13.9 && active / HOUR <= 17.1, `${active / HOUR} h`)
      assert.ok(farrowing.nestPeakLeadMs >= 5 * HOUR && farrowing.nestPeakLeadMs <= 14 * HOUR)
    }
  })

  it('heats raise activity by their amplitude at their plateau, for 24-48 h', () => {
    const heats = sows.flatMap((p) => p.heats.map((h) => ({ h, p })))
    assert.ok(heats.length > 10)
    for (const { h, p } of heats) {
      assert.ok(days(h.end - h.onset) >= 1 && days(h.end - h.onset) <= 2)
      assert.ok(h.amplitude >= 1.05 && h.amplitude <= 2)
      assert.ok(Math.abs(effect(p, { heats: [] }, (h.onset + h.end) / 2) - h.amplitude) < 1e-9)
    }
  })

  it('lameness declines activity to its factor over declineMs, and movement too', () => {
    const lame = plans.filter((p) => p.lameness.length > 0)
    assert.ok(lame.length > 5)
    for (const p of lame) {
      const l = p.lameness[0]!
      assert.ok(Math.abs(effect(p, { lameness: [] }, l.onset + l.declineMs + DAY) - l.activityFactor) < 1e-9)
      assert.ok(Math.abs(effect(p, { lameness: [] }, l.onset + l.declineMs / 2) - (1 + l.activityFactor) / 2) < 1e-9)
      assert.equal(effect(p, { lameness: [] }, l.onset - HOUR), 1)
      assert.ok(
        physiologyAt(p, quietFarm, l.onset + l.declineMs + DAY).movement <
          physiologyAt({ ...p, lameness: [] }, quietFarm, l.onset + l.declineMs + DAY).movement,
      )
      assert.ok(days(l.declineMs) >= 10 && days(l.declineMs) <= 18)
    }
  })

  it('hot days warm every ear and calm every animal from 10:00 to 20:00; late feedings move the feeding peak', () => {
    assert.ok(farm.hotDays.size > 0 && farm.lateFeedings.size > 0)
    const hot = [...farm.hotDays][0]!
    const plan = plans[0]!
    const noon = hot * DAY + 13 * HOUR
    const calm = physiologyAt(plan, farm, noon)
    const usual = physiologyAt(plan, { ...farm, hotDays: new Set() }, noon)
    assert.ok(
      Math.abs(calm.warming - usual.warming - 1.2) < 1e-9 && Math.abs(calm.activity / usual.activity - 0.6) < 1e-9,
    )
    const [late, hours] = [...farm.lateFeedings][0]!
    const plain = { ...farm, lateFeedings: new Map() }
    const at = (h: number) => late * DAY + h * HOUR + 10 * 60_000
    assert.ok(physiologyAt(plan, farm, at(7 + hours)).activity > physiologyAt(plan, plain, at(7 + hours)).activity)
    assert.ok(physiologyAt(plan, farm, at(7)).activity < physiologyAt(plan, plain, at(7)).activity)
  })

  it('a tag that drops out sends nothing for the gap', () => {
    const index = plans.findIndex((p) => p.dropouts.length > 0)
    const plan = plans[index]!
    const gap = plan.dropouts[0]!
    const rows = [
      ...simulateReadings(
        herd[index]!,
        {
          uid: 'ground-truth',
          seed: 'ground-truth',
          start: gap.from - DAY,
          end: gap.to + DAY,
          intervalMs: 60_000,
          batchSize: 100_000,
        },
        { animal: plan, farm },
      ),
    ].flatMap((b): { t: number }[] => b.rows)
    assert.ok(rows.length > 0)
    assert.ok(rows.every((r) => r.t < gap.from || r.t >= gap.to))
  })
})

describe("the rough farm's troubles", () => {
  const rough = herd.map((animal) => planAnimal(animal, { ...window, profile: 'rough' }))

  it('keep the default herd, with lameness in fewer animals, fevers, loose and replaced tags, fights after weaning', () => {
    rough.forEach((plan, i) => {
      assert.deepEqual(plan.farrowings, plans[i]!.farrowings)
      assert.deepEqual(plan.heats, plans[i]!.heats)
      assert.deepEqual(plan.weanings, plans[i]!.weanings)
      assert.ok(plan.lameness.length <= plans[i]!.lameness.length)
      assert.ok(plan.disturbances.length >= plans[i]!.disturbances.length + 2 * plan.weanings.length)
    })
    const count = (of: (plan: AnimalPlan) => number) => rough.reduce((sum, plan) => sum + of(plan), 0)
    assert.ok(count((p) => p.lameness.length) < plans.reduce((sum, p) => sum + p.lameness.length, 0) / 2)
    assert.ok(count((p) => p.fevers.length) > 0 && count((p) => p.looseTags.length) > 0)
    for (const plan of plans) assert.equal(plan.fevers.length + plan.looseTags.length + plan.tagOffsets.length, 0)
  })

  it('a fever calms the animal and warms its ear; a loose tag reads cooler and moves at rest', () => {
    const index = rough.findIndex((p) => p.fevers.length > 0)
    const fever = rough[index]!.fevers[0]!
    const t = (fever.from + fever.to) / 2
    const sick = physiologyAt(rough[index]!, quietFarm, t)
    const well = physiologyAt({ ...rough[index]!, fevers: [] }, quietFarm, t)
    assert.ok(Math.abs(sick.activity / well.activity - fever.activity) < 1e-9)
    assert.ok(Math.abs(sick.warming - well.warming - fever.warmingC) < 1e-9)

    const loose = rough.findIndex((p) => p.looseTags.length > 0)
    const tag = rough[loose]!.looseTags[0]!
    const readings = (plan: AnimalPlan) =>
      [
        ...simulateReadings(
          herd[loose]!,
          {
            uid: 'ground-truth',
            seed: 'ground-truth',
            start: tag.from,
            end: tag.from + DAY,
            intervalMs: 60_000,
            batchSize: 100_000,
          },
          { animal: plan, farm: quietFarm },
        ),
      ].flatMap((b) => (b.kind === 'sensordata' ? b.rows : []))
    const [on, off] = [readings(rough[loose]!), readings({ ...rough[loose]!, looseTags: [] })]
    const mean = (rows: { c: number }[]) => rows.reduce((s, r) => s + r.c, 0) / rows.length
    const moving = (rows: { x: number; y: number; z: number }[]) =>
      rows.filter((r) => Math.abs(Math.hypot(r.x, r.y, r.z) - 1) > 0.1).length
    assert.ok(mean(on) < mean(off) - tag.coolingC / 2)
    assert.ok(moving(on) > moving(off))
  })
})

describe("the gilts farm's heats without a record", () => {
  const gilts = herd.map((animal) => planAnimal(animal, { ...window, profile: 'gilts' }))
  // A gilt's plan starts with her cycles, a sow's with a farrowing.
  const isGilt = (plan: AnimalPlan, i: number) =>
    herd[i]!.Sex === 'female' && (plan.farrowings.length === 0 || plan.services[0]! < plan.farrowings[0]!.onset)
  const heatOf = (plan: AnimalPlan, t: number) => plan.heats.find((h) => t >= h.onset && t <= h.end)

  it("keep the default herd's sows, lameness and dropouts, with a gilt's cycle in some females and weanings unrecorded", () => {
    let giltCount = 0
    let unrecorded = 0
    gilts.forEach((plan, i) => {
      assert.deepEqual(plan.lameness, plans[i]!.lameness)
      assert.deepEqual(plan.dropouts, plans[i]!.dropouts)
      if (isGilt(plan, i)) {
        giltCount++
        return
      }
      assert.deepEqual(plan.heats, plans[i]!.heats)
      assert.deepEqual(plan.weanings, plans[i]!.weanings)
      assert.ok((plan.unrecordedWeanings ?? []).every((w) => plan.weanings.includes(w)))
      unrecorded += plan.unrecordedWeanings?.length ?? 0
    })
    assert.ok(giltCount > 0 && unrecorded > 0)
    for (const plan of plans) assert.equal(plan.unrecordedWeanings, undefined)
  })

  it('a gilt cycles every 18-24 days with heats of 36-60 h until served in one, and is served again at a return', () => {
    gilts.forEach((plan, i) => {
      if (!isGilt(plan, i)) return
      assert.ok(plan.heats.length >= 2)
      for (const [n, heat] of plan.heats.entries()) {
        assert.ok(days(heat.end - heat.onset) >= 1.5 && days(heat.end - heat.onset) <= 2.5)
        if (n > 0) {
          const gap = days(heat.onset - plan.heats[n - 1]!.onset)
          assert.ok(gap >= 18 && gap <= 25, String(gap))
        }
      }
      for (const service of plan.services) assert.ok(heatOf(plan, service), 'served in a heat')
      const first = plan.services[0]
      if (first === undefined) return
      assert.ok(plan.heats.filter((h) => h.onset < first).length >= 2, 'served at her second heat or later')
      for (const heat of plan.heats.filter((h) => h.onset > first))
        assert.ok(plan.services.some((s) => s >= heat.onset && s <= heat.end))
      for (const f of plan.farrowings) assert.ok(days(f.onset - plan.services.at(-1)!) >= 113)
    })
  })

  it("leave the unrecorded weanings out of the evaluation's and the farm's records", () => {
    const index = gilts.findIndex((p) => (p.unrecordedWeanings?.length ?? 0) > 0)
    const plan = gilts[index]!
    const listed = planRecords(plan, window.seed, index, window.end)
      .filter((r) => r.segment === 'weanings')
      .map((r) => r.at)
    assert.deepEqual(
      listed,
      plan.weanings.filter((w) => !plan.unrecordedWeanings!.includes(w) && w <= window.end),
    )
  })
})

describe("the weak-heats farm's heats", () => {
  const weak = herd.map((animal) => planAnimal(animal, { ...window, profile: 'weak-heats' }))
  const weakSows = weak.filter((_, i) => herd[i]!.Sex === 'female')
  const heats = weakSows.flatMap((p) => p.heats.map((h) => ({ h, p })))
  const rise = (plan: AnimalPlan, t: number) =>
    physiologyAt(plan, quietFarm, t).activity / physiologyAt({ ...plan, heats: [] }, quietFarm, t).activity

  it("keep the default herd's lameness, dropouts and first farrowings, its cycle moved by the weaning-to-oestrus interval", () => {
    weak.forEach((plan, i) => {
      assert.deepEqual(plan.lameness, plans[i]!.lameness)
      assert.deepEqual(plan.dropouts, plans[i]!.dropouts)
      assert.equal(plan.heats.length, plans[i]!.heats.length)
      assert.deepEqual(plan.farrowings[0], plans[i]!.farrowings[0])
      // A farrowing moves with the weaning-to-oestrus intervals before it, the service that held staying 113-117 days before.
      for (const f of plan.farrowings) {
        const service = plan.services.filter((s) => s < f.onset).at(-1)
        if (service !== undefined) assert.ok(days(f.onset - service) >= 113 && days(f.onset - service) <= 117)
      }
    })
    for (const plan of plans) assert.ok(plan.heats.every((h) => h.edgeMs === undefined && h.nightShare === undefined))
  })

  it('are mostly a rise of 1.15-1.45x over 36-72 h, some silent, a few stronger; 3-8 days after weaning, a few later', () => {
    assert.ok(heats.length > 20, String(heats.length))
    const amplitudes = heats.map(({ h }) => h.amplitude)
    assert.ok(amplitudes.every((a) => a >= 1.05 && a <= 1.9))
    const modest = amplitudes.filter((a) => a >= 1.15 && a <= 1.45).length
    assert.ok(modest > amplitudes.length / 2, `${modest} of ${amplitudes.length}`)
    assert.ok(amplitudes.some((a) => a > 1.45) && amplitudes.some((a) => a < 1.15))
    for (const { h } of heats) {
      assert.ok(days(h.end - h.onset) >= 1.5 && days(h.end - h.onset) <= 3)
      assert.ok(h.edgeMs! >= 8 * HOUR && h.edgeMs! <= 12 * HOUR)
      assert.ok(h.nightShare! >= 0.2 && h.nightShare! <= 0.5)
    }
    const intervals = weakSows.flatMap((p) =>
      p.weanings.flatMap((w) => {
        const heat = p.heats.find((h) => h.onset > w)
        return heat ? [days(heat.onset - w)] : []
      }),
    )
    assert.ok(intervals.length > 10 && intervals.every((d) => d >= 3 && d <= 12), intervals.join())
    assert.ok(intervals.filter((d) => d <= 8).length > intervals.length * 0.75)
    for (const plan of weakSows)
      for (const service of plan.services)
        assert.ok(
          plan.heats.some((h) => service >= h.onset && service <= h.end),
          'served in heat',
        )
  })

  it('build up over their edge and raise activity mostly by day: the full rise by day, its night share at night', () => {
    for (const { h, p } of heats.slice(0, 15)) {
      const middle = Math.floor((h.onset + h.end) / 2 / DAY) * DAY
      const [noon, midnight] = [middle + 12 * HOUR, middle + 23.5 * HOUR]
      if (noon - h.onset > h.edgeMs! && h.end - noon > h.edgeMs!)
        assert.ok(Math.abs(rise(p, noon) - h.amplitude) < 1e-9)
      if (midnight - h.onset > h.edgeMs! && h.end - midnight > h.edgeMs!)
        assert.ok(Math.abs(rise(p, midnight) - (1 + (h.amplitude - 1) * h.nightShare!)) < 1e-9)
      const halfway = h.onset + h.edgeMs! / 2
      const hour = (halfway % DAY) / HOUR
      const share = hour >= 6 && hour < 18 ? 1 : h.nightShare!
      assert.ok(Math.abs(rise(p, halfway) - (1 + ((h.amplitude - 1) * share) / 2)) < 1e-9)
    }
  })
})

describe('the evaluation', () => {
  it('counts alarms as the default alert rules raise them: hysteresis 0.05, no raise within 12 h of a clear', () => {
    // Raised at 1, on while at 0.45 or more, cleared at 4; high again from 5 but raised only once 12 h have passed
    // since the clear (16), where a merge of crossings less than 12 h apart would have made one alarm from 1.
    const p = [0, 0.5, 0.6, 0.46, 0.44, ...Array<number>(11).fill(0.7), 0.8, 0.49, 0.3]
    assert.deepEqual(alarmsOf(p, 0, p.length - 1), [
      [1, 3],
      [16, 17],
    ])
    assert.deepEqual(alarmsOf(p, 4, 4), [])
    assert.deepEqual(alarmsOf(p, 5, 6), [[5, 6]], 'the state starts with the counted hours')
  })

  it('fits a calibration by isotonic regression: shares of events per score, pooled where they fall, strictly rising', () => {
    const pairs: [number, boolean][] = []
    const add = (score: number, hours: number, events: number) => {
      for (let h = 0; h < hours; h++) pairs.push([score, h < events])
    }
    add(0, 1000, 10) // 0.01
    add(0.3, 400, 40) // 0.10
    add(0.5, 400, 20) // 0.05: below the 0.3's share, pooled with it: 60 / 800
    add(0.8, 400, 300) // 0.75
    assert.deepEqual(isotonicKnots(pairs), [
      [0, 0.01],
      [0.4, 0.075],
      [0.8, 0.75],
    ])
    // A block of fewer than minHours is merged into its neighbour: (320 + 9) / 410, 310 / 410.
    add(0.9, 10, 10)
    assert.deepEqual(isotonicKnots(pairs).at(-1), [0.802, 0.7561])
  })

  it('measures the scorer and a plain threshold on the same herd; the plain threshold is far from perfect', () => {
    const report = evaluatePredictions({ seed: 'tuning-1', animals: 40, days: 21 })
    assert.equal(report.family, 'cycle')
    assert.equal(report.tunedOn, true)
    assert.equal(report.animals, 40)
    assert.ok(report.scorer.birth.episodes > 0 && report.scorer.heat.episodes > 0)
    const plain = report.plainThreshold
    assert.ok(plain.birth.falseAlarmsPerAnimalMonth > 5, JSON.stringify(plain.birth))
    assert.ok(report.scorer.birth.falseAlarmsPerAnimalMonth < plain.birth.falseAlarmsPerAnimalMonth / 5)
    assert.ok((plain.heat.sensitivity ?? 1) < 1 || plain.heat.falseAlarmsPerAnimalMonth > 1, JSON.stringify(plain.heat))
    // Every figure comes with its interval, calibration's too (whole animals resampled).
    for (const kind of ['birth', 'heat', 'lameness'] as const) {
      const { calibration, calibrationCI } = report.scorer[kind]
      assert.ok(calibration !== null && calibrationCI !== null, kind)
      assert.ok(0 <= calibrationCI[0] && calibrationCI[0] <= calibrationCI[1] && calibrationCI[1] <= 1, kind)
    }
    // Lameness's earliness apart: episodes first alarmed within 7 days of onset, with their interval.
    const { early, episodes } = report.scorer.lameness
    assert.ok(early !== null && early.withinDays === 7 && early.detected <= episodes, JSON.stringify(early))
    assert.ok(early.ci !== null && early.ci[0] <= (early.share ?? 0) && (early.share ?? 0) <= early.ci[1])
    assert.equal(report.scorer.birth.early, null)
  })
})
