// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The simulated herd's farm records against its plan (so against its readings): a birth at each farrowing's
// onset, a pregnancy check after each service that held, a return at the heat after each that did not, weanings,
// culls after which the tag is silent; and the herd they make, read by the cycle and KPI rules.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { planAnimal, simulateReadings, simulatedHerd } from '../../src/simulation/herd-simulator.ts'
import { planRecords, withCull } from '../../src/simulation/herd-records.ts'
import { cycleState, dayOf, dayOfInstant, type CycleEvent } from '../../src/modules/cycle/cycle.rules.ts'
import { herdKpis } from '../../src/modules/herd/kpi.rules.ts'

const DAY = 86_400_000
const SEED = 'farm-records'
const end = Date.UTC(2026, 5, 1, 12)
const window = { seed: SEED, start: end - 30 * DAY, end }
const herd = simulatedHerd(SEED, 60)
const plans = herd.map((a) => withCull(planAnimal(a, window), SEED, a.index))
const records = herd.map((a) => planRecords(plans[a.index]!, SEED, a.index, end))

/** The records as the cycle rules read them (cycle/cycle.repository.ts does the same from the tables). */
function eventsOf(list: (typeof records)[number]): CycleEvent[] {
  return list.map((r): CycleEvent => {
    const b = r.body
    const day = (field: string) => dayOf(String(b[field]))!
    switch (r.segment) {
      case 'inseminations':
        return { kind: 'service', day: day('StartDate') }
      case 'pregnancy-checks':
        return { kind: 'check', day: day('checkDate'), result: b.result as 'pregnant' }
      case 'return-to-estrus':
        return { kind: 'return', day: day('returnDate') }
      case 'births':
        return { kind: 'farrowing', day: day('StartDate'), bornAlive: Number(b.Living), stillborn: Number(b.Dead) }
      case 'weanings':
        return { kind: 'weaning', day: day('weaningDate'), weaned: Number(b.countWeaned), fosterIn: 0, fosterOut: 0 }
      case 'movements':
        return { kind: 'cull', day: day('movementDate') }
      case 'treatments':
        return { kind: 'check', day: day('StartDate'), result: 'recheck' } // no cycle event
    }
  })
}

describe('simulated farm records', () => {
  it("record each farrowing at its onset, each service in its heat, each weaning, all up to the window's end", () => {
    for (const [i, plan] of plans.entries()) {
      const list = records[i]!
      assert.ok(list.every((r) => r.at <= end))
      const births = list.filter((r) => r.segment === 'births').map((r) => r.at)
      assert.deepEqual(
        births,
        plan.farrowings.map((f) => f.onset).filter((t) => t <= end),
      )
      const services = list.filter((r) => r.segment === 'inseminations' && r.body.serviceOrder === 1).map((r) => r.at)
      // The service of her first farrowing (before the plan began), then each of the plan's, in its heat.
      const history = plan.farrowings.length > 0 ? 1 : 0
      if (history) {
        const gestation = (plan.farrowings[0]!.onset - services[0]!) / DAY
        assert.ok(gestation > 112 && gestation < 118, String(gestation))
      }
      assert.deepEqual(
        services.slice(history),
        plan.services.filter((t) => t <= end),
      )
      for (const s of plan.services) assert.ok(plan.heats.some((h) => s >= h.onset && s <= h.end + DAY))
      assert.equal(list.filter((r) => r.segment === 'weanings').length, plan.weanings.filter((t) => t <= end).length)
    }
  })

  it('check a service that held 28-35 days after it, and record the return at the heat after one that did not', () => {
    let checks = 0
    let returns = 0
    for (const [i, plan] of plans.entries()) {
      for (const r of records[i]!) {
        if (r.segment === 'pregnancy-checks') {
          checks++
          const service = records[i]!.filter((s) => s.segment === 'inseminations' && s.at < r.at).at(-1)!.at
          const days = (r.at - service) / DAY
          assert.ok(days >= 27 && days <= 36, String(days))
          assert.ok(!plan.heats.some((h) => h.onset > service && h.onset < r.at))
        }
        if (r.segment === 'return-to-estrus') {
          returns++
          assert.ok(plan.heats.some((h) => h.onset === r.at))
          assert.ok((r.body.daysSinceService as number) >= 17 && (r.body.daysSinceService as number) <= 25)
        }
      }
    }
    assert.ok(checks > 10 && returns > 0, `${checks} checks, ${returns} returns`)
  })

  it('cull some sows after a weaning: inactive from then, their tags silent', () => {
    const culled = plans.filter((p) => p.culled !== undefined && p.culled <= end)
    assert.ok(culled.length > 0)
    const index = plans.findIndex((p) => p.culled !== undefined && p.culled > window.start && p.culled <= end)
    if (index >= 0) {
      const plan = plans[index]!
      const rows = [
        ...simulateReadings(
          herd[index]!,
          { uid: SEED, ...window, intervalMs: 600_000, batchSize: 10_000 },
          { animal: plan, farm: { weather: new Map(), lateFeedings: new Map(), hotDays: new Set() } },
        ),
      ].flatMap((b): { t: number }[] => b.rows)
      assert.ok(rows.length > 0 && rows.every((r) => r.t < plan.culled!))
    }
    for (const [i, plan] of plans.entries())
      if (plan.culled !== undefined && plan.culled <= end)
        assert.equal(records[i]!.filter((r) => r.segment === 'movements').length, 1)
  })

  it('make a herd whose cycle states and KPIs look like a farm', () => {
    const today = dayOfInstant(end)
    const states = new Set(
      herd.filter((a) => a.Sex === 'female').map((a) => cycleState(eventsOf(records[a.index]!), today).state),
    )
    for (const state of ['served', 'pregnant', 'lactating', 'culled'])
      assert.ok(states.has(state as never), [...states].join())
    const females = herd
      .filter((a) => a.Sex === 'female')
      .map((a) => ({ events: eventsOf(records[a.index]!), registered: today }))
    const kpis = herdKpis(females, { from: today - 364, to: today })
    assert.ok(kpis.farrowingRate.value! >= 70 && kpis.farrowingRate.value! <= 100, JSON.stringify(kpis.farrowingRate))
    assert.ok(kpis.bornAlivePerLitter.value! > 12 && kpis.bornAlivePerLitter.value! < 16)
    assert.ok(kpis.preWeaningMortality.value! > 5 && kpis.preWeaningMortality.value! < 20)
    assert.ok(kpis.weanToServiceInterval.value! > 3 && kpis.weanToServiceInterval.value! < 8)
  })
})
