// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The barn family of simulated herds: determinism, the cycle its records tell, and what its ear tags show.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { barnHerd, type BarnAnimal, type BarnOptions } from '../../src/simulation/barn-herd.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS
const start = Date.UTC(2026, 0, 5)
const options: BarnOptions = { seed: 'barn-test', animals: 60, start, end: start + 60 * DAY_MS, intervalMs: 600_000 }
const herd = [...barnHerd(options)]
const females = herd.filter((animal) => animal.sex === 'female')

const isMoving = ({ x, y, z }: { x: number; y: number; z: number }) => Math.abs(Math.hypot(x, y, z) - 1) > 0.1
const lastReading = (animal: BarnAnimal) => animal.sensor.at(-1)?.t ?? -Infinity
/** Whether every sampling instant in [from, to] falls in one of the animal's confounder spans. */
function covered(animal: BarnAnimal, from: number, to: number): boolean {
  for (let t = from; t <= to; t += options.intervalMs)
    if (!animal.confounders.some((span) => span.from <= t && span.to > t)) return false
  return true
}

/** The share of moving samples in [from, to), or undefined when the tag sent too few. */
function movingShare(animal: BarnAnimal, from: number, to: number): number | undefined {
  const rows = animal.sensor.filter((row) => row.t >= from && row.t < to)
  return rows.length < 0.6 * ((to - from) / options.intervalMs) ? undefined : rows.filter(isMoving).length / rows.length
}

/** One service per heat: inseminations a day apart count once, at the first. */
function servedHeats(services: readonly number[]): number[] {
  return services.filter((at, i) => i === 0 || at - services[i - 1]! > 3 * DAY_MS)
}

describe('barnHerd', () => {
  it('gives the same herd for the same seed and another for another seed', () => {
    const small = { ...options, animals: 6, end: start + 10 * DAY_MS }
    assert.deepEqual([...barnHerd(small)], [...barnHerd(small)])
    const other = [...barnHerd({ ...small, seed: 'barn-other' })]
    assert.notDeepEqual(
      other.map((animal) => animal.sensor),
      [...barnHerd(small)].map((animal) => animal.sensor),
    )
  })

  it('has sows in batches, gilts and boars, the sows spread over their cycle at the start', () => {
    assert.equal(herd.length, options.animals)
    assert.ok(herd.some((animal) => animal.group === 'Boars' && animal.sex === 'male'))
    assert.ok(herd.some((animal) => animal.group === 'Gilts'))
    const sows = herd.filter((animal) => animal.group.startsWith('Batch'))
    assert.ok(new Set(sows.map((sow) => sow.group)).size > 1)
    const stateAtStart = ({ records }: BarnAnimal) => {
      const latest = (instants: number[]) => Math.max(-Infinity, ...instants.filter((at) => at < start))
      const [served, born, weaned] = [records.services, records.births, records.weanings].map(latest)
      return served! > Math.max(born!, weaned!) ? 'pregnant or served' : born! > weaned! ? 'lactating' : 'weaned'
    }
    const states = new Set(sows.map(stateAtStart))
    assert.ok(states.has('lactating') && states.has('pregnant or served'))
  })

  it('farrows sows 110 to 120 days after their last service, and records the births', () => {
    let farrowings = 0
    for (const sow of females)
      for (const birth of sow.records.births) {
        const service = sow.records.services.filter((at) => at < birth).at(-1)
        if (service === undefined) continue
        farrowings++
        const days = (birth - service) / DAY_MS
        assert.ok(days >= 110 && days <= 120, `animal ${sow.index}: born ${days.toFixed(1)} days after service`)
      }
    assert.ok(farrowings > 5)
    const truths = females.flatMap((sow) => sow.truth.farrowings.map((farrowing) => ({ sow, farrowing })))
    assert.ok(truths.length > 2)
    for (const { sow, farrowing } of truths) assert.ok(sow.records.births.includes(farrowing.onset))
  })

  it('brings sows into heat within days of weaning', () => {
    const weanings = females.flatMap((sow) =>
      sow.records.weanings
        .filter((at) => at >= start && at + 10 * DAY_MS < lastReading(sow))
        .map((at) => sow.truth.heats.some((heat) => heat.onset >= at + 2 * DAY_MS && heat.onset <= at + 10 * DAY_MS)),
    )
    assert.ok(weanings.length >= 3)
    assert.ok(weanings.filter(Boolean).length >= 0.7 * weanings.length)
  })

  it('finds a failed service open at the scan, or sees her return', () => {
    let failed = 0
    for (const sow of females) {
      const { services, births, checks, returns } = sow.records
      for (const served of servedHeats(services)) {
        const due = served + 121 * DAY_MS
        const born = births.some((at) => at > served + 105 * DAY_MS && at < due)
        if (born || served < start - 121 * DAY_MS || due >= lastReading(sow)) continue
        failed++
        const foundOpen = checks.some((check) => check.result === 'open' && check.at > served && check.at < due)
        const cameBack = [...services, ...returns].some((at) => at > served + 15 * DAY_MS && at < due)
        assert.ok(foundOpen || cameBack, `animal ${sow.index}: service at ${new Date(served).toISOString()}`)
      }
    }
    assert.ok(failed > 0)
  })

  it('sends readings in time order inside the window, with gaps only when the tag or its gateway was down', () => {
    let gaps = 0
    for (const animal of herd) {
      for (const rows of [animal.sensor, animal.locations]) {
        assert.ok(rows.every((row, i) => row.t >= start && row.t < options.end && (i === 0 || row.t > rows[i - 1]!.t)))
      }
      // Samples sit on the interval's grid from the window's start, a few seconds late at most.
      const slots = [-1, ...animal.sensor.map((row) => Math.floor((row.t - start) / options.intervalMs))]
      for (let i = 1; i < slots.length; i++) {
        if (slots[i]! - slots[i - 1]! <= 3) continue
        gaps++
        const [from, to] = [slots[i - 1]! + 1, slots[i]! - 1].map((slot) => start + slot * options.intervalMs)
        assert.ok(
          covered(animal, from!, to!),
          `animal ${animal.index}: no readings from ${new Date(from!).toISOString()}`,
        )
      }
    }
    assert.ok(gaps > 0)
  })

  it('shows nest building as more moving in the hours before farrowing than at the same hours the day before', () => {
    const contrasts = females.flatMap((sow) =>
      sow.truth.farrowings
        .filter((farrowing) => !farrowing.weak)
        .map(({ onset }) => [
          movingShare(sow, onset - 36 * HOUR_MS, onset - 24 * HOUR_MS),
          movingShare(sow, onset - 12 * HOUR_MS, onset),
        ])
        .filter((shares): shares is [number, number] => shares.every((share) => share !== undefined)),
    )
    assert.ok(contrasts.length >= 3)
    assert.ok(contrasts.filter(([dayBefore, nesting]) => nesting > dayBefore).length >= 0.75 * contrasts.length)
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
    assert.ok(mean(contrasts.map(([, nesting]) => nesting)) > 1.5 * mean(contrasts.map(([dayBefore]) => dayBefore)))
  })

  it('gives males no events and no records', () => {
    const males = herd.filter((animal) => animal.sex === 'male')
    assert.ok(males.length > 0)
    for (const male of males) {
      assert.deepEqual(male.truth, { farrowings: [], heats: [], lameness: [] })
      assert.ok(Object.values(male.records).every((list) => list.length === 0))
      assert.ok(male.sensor.length > 0)
    }
  })
})
