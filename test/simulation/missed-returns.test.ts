// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The missed-returns farms of both families (returns nobody saw, found open at the scan) and what the evaluation
// reads of them: the services the checks showed had failed, the heats after them (foundOpen).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { planAnimal, simulatedHerd } from '../../src/simulation/herd-simulator.ts'
import { planRecords } from '../../src/simulation/herd-records.ts'
import { ethogramHerd, planEthogramAnimal } from '../../src/simulation/ethogram-herd.ts'
import { foundOpenBefore, heatHasRecord } from '../../src/simulation/evaluation.ts'
import { withoutPastRecords } from '../../src/simulation/past-records.ts'

const DAY = 86_400_000
const SEED = 'missed-returns'
const end = Date.UTC(2026, 5, 1)
const window = { seed: SEED, start: end - 90 * DAY, end }
const days = (ms: number) => ms / DAY

describe("the cycle family's missed-returns farm", () => {
  const herd = simulatedHerd(SEED, 80)
  const plans = herd.map((a) => planAnimal(a, { ...window, profile: 'missed-returns' }))

  it('leaves some returns unseen: no service in that heat, served at the next one 18-24 days later', () => {
    let unseen = 0
    for (const plan of plans) {
      for (const onset of plan.unseenReturns ?? []) {
        unseen++
        const heat = plan.heats.find((h) => h.onset === onset)!
        assert.ok(!plan.services.some((s) => s >= heat.onset && s <= heat.end), 'not served')
        const failed = plan.services.filter((s) => s < onset).at(-1)!
        assert.ok(days(onset - failed) >= 18 && days(onset - failed) <= 25, 'a return of the service before')
        const next = plan.heats.find((h) => h.onset > onset)
        if (next === undefined) continue
        assert.ok(days(next.onset - onset) >= 18 && days(next.onset - onset) <= 24)
        assert.ok(
          plan.services.some((s) => s >= next.onset && s <= next.end),
          'served at the next heat',
        )
      }
    }
    assert.ok(unseen >= 5, String(unseen))
    const defaults = herd.map((a) => planAnimal(a, window))
    assert.ok(defaults.every((p) => p.unseenReturns === undefined))
  })

  it('records no return for an unseen one, and a check 28-33 days after the service that finds her open', () => {
    let checks = 0
    plans.forEach((plan, i) => {
      const records = planRecords(plan, SEED, i, end)
      for (const onset of plan.unseenReturns ?? []) {
        const service = plan.services.filter((s) => s < onset).at(-1)!
        const open = records.filter((r) => r.segment === 'pregnancy-checks' && r.body.result === 'open')
        const check = open.find((r) => r.at > service && r.at < service + 40 * DAY)
        if (service + 34 * DAY > end) continue
        assert.ok(check, 'scanned open')
        checks++
        assert.ok(days(check.at - service) >= 28 && days(check.at - service) < 34)
        const next = plan.services.find((s) => s > onset)
        if (next !== undefined) assert.ok(check.at < next, 'before she is served again')
        assert.ok(!records.some((r) => r.segment === 'return-to-estrus' && Math.abs(r.at - onset) < DAY))
      }
    })
    assert.ok(checks > 0)
  })
})

describe("the held-out family's missed-returns farm", () => {
  const herd = ethogramHerd(SEED, 120)
  const plans = herd.map((a) => planEthogramAnimal(a, { ...window, profile: 'missed-returns' }))

  it('scans open a sow whose return was not served, before her next service', () => {
    let count = 0
    for (const plan of plans) {
      for (const check of plan.records.openChecks) {
        count++
        const service = plan.records.services.filter((s) => s < check).at(-1)!
        assert.ok(days(check - service) >= 25 && days(check - service) <= 32, String(days(check - service)))
        const unserved = plan.heats.filter((h) => h.onset > service + 15 * DAY && h.onset < check)
        assert.equal(unserved.length, 1, 'her return, passed unseen')
        assert.ok(!plan.records.services.some((s) => s >= unserved[0]!.onset && s < check))
      }
    }
    assert.ok(count >= 5, String(count))
    const defaults = herd.map((a) => planEthogramAnimal(a, window))
    assert.ok(defaults.every((p) => p.records.openChecks.length === 0))
  })
})

describe("the evaluation's reading of a sow found open", () => {
  const service = end - 60 * DAY
  const found = { service, from: service + 30 * DAY }
  const records = { services: [service], weanings: [], births: [], failedServices: [found] }

  it('counts her next heat as one with a record, until she is served again or a later scan finds her pregnant', () => {
    const onset = service + 40 * DAY
    assert.equal(foundOpenBefore(records, onset), true)
    assert.equal(heatHasRecord(records, onset), true)
    assert.equal(foundOpenBefore(records, service + 29 * DAY), false, 'before the scan')
    assert.equal(heatHasRecord({ ...records, failedServices: [] }, onset), false)
    const again = { ...records, services: [service, service + 38 * DAY] }
    assert.equal(foundOpenBefore(again, onset), false)
    const rescanned = { ...records, failedServices: [{ ...found, until: service + 35 * DAY }] }
    assert.equal(foundOpenBefore(rescanned, onset), false)
  })

  it('keeps a failure only where the farm entered both its service and its check (a farm new to records)', () => {
    const animal = { records, treatments: [], heatsSeen: [] }
    assert.deepEqual(withoutPastRecords([animal], service - DAY)[0]!.records.failedServices, [found])
    assert.deepEqual(withoutPastRecords([animal], service + DAY)[0]!.records.failedServices, [])
  })
})
