// The farm records of a simulated animal's life, consistent with its plan (herd-simulator.ts) and so with its
// readings: every service (a second one of the same heat now and then), the pregnancy check of a service that
// held, the return of one that did not (or the check that found her open, where nobody saw the return), each
// farrowing with its litter, each weaning with the piglets weaned, a lameness treatment some days into a lameness,
// and for some sows a cull after a weaning (her tag goes silent).
// Drawn from random streams of their own, so the plan, and the scorer's evaluation built on it, stay as they were.
import { createHash } from 'node:crypto'
import type { AnimalPlan } from './herd-plan.ts'
import { gaussian, prng } from './random.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** A record as the simulate command stores it: the collection's path segment and a create body. */
export interface SimulatedRecord {
  segment:
    'inseminations' | 'pregnancy-checks' | 'return-to-estrus' | 'births' | 'weanings' | 'movements' | 'treatments'
  at: number
  body: Record<string, unknown>
}

function randomOf(seed: string, index: number, stream: string): () => number {
  return prng(createHash('sha256').update(`${seed}:${stream}:${index}`).digest().readUInt32BE(0))
}
const uniform = (random: () => number, min: number, max: number) => min + random() * (max - min)
const day = (t: number) => new Date(t).toISOString().slice(0, 10)
const time = (t: number) => new Date(t).toISOString().slice(11, 16)

/** Share of weanings after which the sow is culled (replacement rates run 40-50 % a year, about one litter in six). */
export const CULL_AFTER_WEANING = 0.15

/**
 * The plan with a cull: after each weaning, with probability CULL_AFTER_WEANING, the sow leaves 0-2 days later,
 * and nothing of her plan after that happens. `culled` is undefined when she stays.
 */
export function withCull(plan: AnimalPlan, seed: string, index: number): AnimalPlan {
  const random = randomOf(seed, index, 'cull')
  const weaning = plan.weanings.find(() => random() < CULL_AFTER_WEANING)
  if (weaning === undefined) return plan
  const culled = weaning + uniform(random, 0, 2) * DAY
  return {
    ...plan,
    culled,
    farrowings: plan.farrowings.filter((f) => f.onset < culled),
    heats: plan.heats.filter((h) => h.onset < culled),
    services: plan.services.filter((s) => s < culled),
    weanings: plan.weanings.filter((w) => w <= culled),
    crated: plan.crated.filter((c) => c.from < culled),
  }
}

/** The records of a sow's (or boar's) plan dated up to `until`, oldest first. */
export function planRecords(plan: AnimalPlan, seed: string, index: number, until: number): SimulatedRecord[] {
  const random = randomOf(seed, index, 'records')
  const out: SimulatedRecord[] = []
  const add = (segment: SimulatedRecord['segment'], at: number, body: Record<string, unknown>) => {
    if (at <= until) out.push({ segment, at, body: { ...body, Archived: false } })
  }
  let parity = 0
  const litters = new Map<number, number>()
  // A sow's plan starts at a farrowing: the service that led to it (a morning 113-117 days before) is history too.
  const first = plan.farrowings[0]
  // A gilt's plan (the gilts profile) holds the service before her first farrowing already.
  const history =
    first === undefined || plan.services.some((s) => s < first.onset)
      ? []
      : [Math.floor((first.onset - uniform(random, 113, 117) * DAY) / DAY) * DAY + 8 * HOUR]
  for (const service of [...history, ...plan.services]) {
    const insemination = { Boar: 'Duroc DK-4471', serviceType: 'AI', Occupied: true }
    add('inseminations', service, {
      ...insemination,
      StartDate: day(service),
      StartTime: time(service),
      serviceOrder: 1,
    })
    if (random() < 0.6) {
      const second = service + uniform(random, 10, 14) * HOUR
      add('inseminations', second, {
        ...insemination,
        StartDate: day(second),
        StartTime: time(second),
        serviceOrder: 2,
      })
    }
    // A service that did not hold is followed by a heat 18-24 days later; one that held (its farrowing may lie past
    // the plan's end) is scanned pregnant 28-35 days after.
    const returned = plan.heats.find((h) => h.onset - service > 15 * DAY && h.onset - service < 26 * DAY)
    if (returned && plan.unseenReturns?.includes(returned.onset)) {
      // Nobody saw her return (the missed-returns profile): the scan, before her next heat, finds her open.
      const check = service + Math.floor(uniform(random, 28, 34)) * DAY
      add('pregnancy-checks', check, { checkDate: day(check), checkNumber: 1, result: 'open', method: 'ultrasound' })
    } else if (returned) {
      const days = Math.round((returned.onset - service) / DAY)
      add('return-to-estrus', returned.onset, {
        returnDate: day(returned.onset),
        returnType: days >= 18 && days <= 24 ? 'regular' : 'irregular',
        daysSinceService: days,
      })
    } else {
      const check = service + Math.floor(uniform(random, 28, 36)) * DAY
      add('pregnancy-checks', check, {
        checkDate: day(check),
        checkNumber: 1,
        result: 'pregnant',
        method: 'ultrasound',
      })
    }
  }
  for (const f of plan.farrowings) {
    parity++
    const living = Math.max(6, Math.min(20, Math.round(14 + 2.5 * gaussian(random))))
    const dead = random() < 0.35 ? 0 : random() < 0.7 ? 1 : random() < 0.7 ? 2 : 3
    litters.set(f.onset, living)
    add('births', f.onset, {
      Living: living,
      Dead: dead,
      StartDate: day(f.onset),
      StartTime: time(f.onset),
      Parity: parity,
    })
  }
  for (const w of plan.weanings) {
    const farrowed = [...litters.keys()].filter((onset) => onset < w).at(-1)
    const living = farrowed === undefined ? 13 : litters.get(farrowed)!
    // About 12 % of the piglets born alive die before weaning.
    let died = 0
    for (let i = 0; i < living; i++) if (random() < 0.12) died++
    if (plan.unrecordedWeanings?.includes(w)) continue
    add('weanings', w, {
      weaningDate: day(w),
      countWeaned: living - died,
      ...(farrowed === undefined ? {} : { weaningAge: Math.round((w - farrowed) / DAY) }),
    })
  }
  if (plan.culled !== undefined)
    add('movements', plan.culled, {
      movementDate: day(plan.culled),
      fromStage: 'weaned',
      toStage: 'cull',
      toLocation: 'Slaughterhouse',
    })
  // Lameness is seen, and treated, 4-9 days into it, in 7 cases out of 10.
  for (const lame of plan.lameness) {
    if (random() >= 0.7 || lame.onset >= (plan.culled ?? Infinity)) continue
    const seen = lame.onset + uniform(random, 4, 9) * DAY
    add('treatments', seen, {
      Medicine: 'Meloxicam',
      Diagnose: 'Lameness',
      CustomName: 'Farm vet',
      Comment: 'Lame, anti-inflammatory for 3 days',
      TreatmentAmount: 3,
      TreatmentCount: 1,
      TreatmentInterval: 24,
      StartDate: day(seen),
      StartDateSeconds: Math.floor(seen / 1000),
      PhoneHistory: [],
    })
  }
  return out.sort((a, b) => a.at - b.at)
}
