// The rough profile of the cycle family (herd-simulator.ts, PlanWindow.profile): the troubles real farms have.
import type { AnimalPlan, PlanWindow, SimulatedAnimal } from './herd-plan.ts'
import { prng, seedOf, uniform } from './random.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/**
 * The rough profile's troubles, from their own random streams (so that the herd is otherwise the default farm's): the
 * animal's from (seed, animal), its pen's from (seed, pen), shared by every animal of the pen.
 */
export function addRoughFarmTroubles(plan: AnimalPlan, animal: SimulatedAnimal, window: PlanWindow): void {
  const random = prng(seedOf(window.seed, 'rough', animal.index))
  // Lameness in 10-20 % of sows over a period rather than half the herd; a third of it acute (an injury, a claw
  // lesion: at its worst within 1-3 days).
  plan.lameness = plan.lameness.flatMap((lame) => {
    if (random() >= 0.3) return []
    if (random() >= 1 / 3) return [lame]
    return [{ ...lame, declineMs: uniform(random, 1, 3) * DAY, activityFactor: uniform(random, 0.4, 0.7) }]
  })
  // A fever (a respiratory or enteric infection) in one animal in six over the period, 1-4 days; and in one farrowing
  // in six the sow's postpartum fever (dysgalactia) over the 1-3 days after it.
  const fever = (from: number, to: number) => ({
    from,
    to,
    activity: uniform(random, 0.5, 0.8),
    warmingC: uniform(random, 0.6, 1.5),
  })
  if (random() < 1 / 6) {
    const from = uniform(random, window.start, window.end)
    plan.fevers.push(fever(from, from + uniform(random, 1, 4) * DAY))
  }
  for (const f of plan.farrowings)
    if (random() < 1 / 6) plan.fevers.push(fever(f.onset + 6 * HOUR, f.onset + uniform(random, 1, 3) * DAY))
  // A tag hanging loose in one animal in eight, for 3-14 days until someone refits it; one torn off in one in
  // twenty, silent for 1-3 days until replaced by a tag that reads 2 °C lower to 1 °C higher.
  if (random() < 1 / 8) {
    const from = uniform(random, window.start, window.end)
    plan.looseTags.push({
      from,
      to: from + uniform(random, 3, 14) * DAY,
      jiggleG: uniform(random, 0.03, 0.08),
      coolingC: uniform(random, 0.3, 2),
    })
  }
  if (random() < 1 / 20) {
    const from = uniform(random, window.start, window.end)
    const replaced = from + uniform(random, 1, 3) * DAY
    plan.dropouts.push({ from, to: replaced })
    plan.tagOffsets.push({ from: replaced, offsetC: uniform(random, -2, 1) })
  }
  // Weaned sows are mixed into new groups: fights, most in the first day, some into the second.
  for (const weaning of plan.weanings) {
    const fights = weaning + uniform(random, 1, 4) * HOUR
    plan.disturbances.push({
      from: fights,
      to: fights + uniform(random, 12, 24) * HOUR,
      amplitude: uniform(random, 1.8, 3),
    })
    plan.disturbances.push({ from: fights + DAY, to: fights + DAY + uniform(random, 6, 24) * HOUR, amplitude: 1.4 })
  }
  // What a pen goes through together: about every 10 days 2-8 hours of unrest (a feeder jammed, the pen cleaned or
  // regrouped, a vet visit), and about every 15 days its gateway out of reach for 2-12 hours.
  const pen = prng(seedOf(window.seed, 'rough-pen', animal.Group))
  for (let t = window.start + uniform(pen, 0, 20) * DAY; t < window.end; t += uniform(pen, 0, 20) * DAY)
    plan.disturbances.push({ from: t, to: t + uniform(pen, 2, 8) * HOUR, amplitude: uniform(pen, 1.5, 2.5) })
  for (let t = window.start + uniform(pen, 0, 30) * DAY; t < window.end; t += uniform(pen, 0, 30) * DAY)
    plan.dropouts.push({ from: t, to: t + uniform(pen, 2, 12) * HOUR })
}
