// One simulated herd as the evaluations see it, whatever its family: each animal's ground truth, the farm's records
// as the job reads them, and its readings summarized per hour. Three families, each written apart from the others:
// the rules are tuned on the cycle family (herd-simulator.ts) and measured on the ethogram family (ethogram-herd.ts)
// and the barn family (barn-herd.ts, written without reading the scorer or the other two).
import type { CycleProfile } from './herd-plan.ts'
import { planAnimal, planFarm, simulateReadings, simulatedHerd } from './herd-simulator.ts'
import {
  ethogramHerd,
  ethogramReadings,
  planEthogramAnimal,
  planEthogramFarm,
  type EthogramProfile,
} from './ethogram-herd.ts'
import { planRecords } from './herd-records.ts'
import { barnHerd } from './barn-herd.ts'
import type { AnimalTruth } from './ground-truth.ts'
import type { LocationRow, SensorRow } from '../modules/readings/readings.schemas.ts'
import { HOUR_MS, alignHours, summarizeHours, type HourSummary } from '../modules/predictions/hour-summaries.rules.ts'
import { failedServices, type AnimalRecords, type ServiceOutcome } from '../modules/predictions/reproduction.rules.ts'

const DAY_MS = 24 * HOUR_MS

/** The families of simulated herds: the rules are tuned on TUNING_FAMILY only. */
export const HERD_FAMILIES = ['cycle', 'ethogram', 'barn'] as const
export type HerdFamily = (typeof HERD_FAMILIES)[number]
export const TUNING_FAMILY: HerdFamily = 'cycle'

/** The herd to simulate: its family and farm, its seed, its size and its days. */
export interface HerdOptions {
  family?: HerdFamily
  /** The ethogram family's farm profile (ethogram-herd.ts; default: the default farm). */
  profile?: EthogramProfile
  /** The cycle family's farm profile (herd-simulator.ts; default: the default farm). */
  cycleProfile?: CycleProfile
  seed: string
  animals: number
  /** Days evaluated; the simulation runs historyDays longer, so that baselines exist on the first evaluated day. */
  days: number
  historyDays?: number
  intervalMs?: number
  /** First simulated instant; a fixed date keeps a seed's herd the same run after run. */
  start?: number
}

/** The instant the job reads for a record kept by its day alone: the day's noon (recordInstant). */
const noonOf = (t: number) => Math.floor(t / DAY_MS) * DAY_MS + 12 * HOUR_MS

/** One simulated animal as the evaluation sees it, whatever its family: ground truth, records and hourly summaries. */
export interface SimulatedAnimalData extends AnimalTruth {
  records: AnimalRecords
  /** Lameness treatments the farm recorded. */
  treatments: number[]
  /** Returns to estrus the farm recorded (heats it saw, served or not), at the record day's noon as the job reads them. */
  heatsSeen: number[]
  hours: HourSummary[]
}

/** The herd's readings summarized per hour (one animal in memory at a time), with its ground truth. */
export function simulateHerdHours(
  options: Required<Omit<HerdOptions, 'cycleProfile'>> & Pick<HerdOptions, 'cycleProfile'>,
): SimulatedAnimalData[] {
  const { seed, start, intervalMs } = options
  const end = start + (options.historyDays + options.days) * DAY_MS
  const first = Math.floor(start / HOUR_MS) * HOUR_MS
  const last = Math.floor(end / HOUR_MS) * HOUR_MS - HOUR_MS
  const hoursOf = (sensor: readonly SensorRow[], locations: readonly LocationRow[]) =>
    alignHours(summarizeHours(sensor, locations), first, last)
  if (options.family === 'ethogram') {
    const farm = planEthogramFarm({ seed, start, end })
    return ethogramHerd(seed, options.animals).map((animal) => {
      const plan = planEthogramAnimal(animal, { seed, start, end, profile: options.profile })
      const { sensor, locations } = ethogramReadings(animal, plan, farm, { seed, start, end, intervalMs })
      return {
        index: animal.index,
        sex: animal.Sex,
        group: animal.Group,
        truth: { farrowings: plan.farrowings, heats: plan.heats, lameness: plan.lameness },
        confounders: [...plan.looseTag, ...plan.tornTag, ...plan.fevers],
        records: withFailedServices(
          { services: plan.records.services, weanings: plan.records.weanings, births: plan.records.births },
          plan.records.openChecks.map((at) => ({ kind: 'check', result: 'open', at: noonOf(at) })),
        ),
        treatments: plan.records.lamenessTreatments,
        heatsSeen: [],
        hours: hoursOf(sensor, locations),
      }
    })
  }
  if (options.family === 'barn') {
    const herd: SimulatedAnimalData[] = []
    for (const { records: farmRecords, sensor, locations, ...animal } of barnHerd({
      seed,
      animals: options.animals,
      start,
      end,
      intervalMs,
    })) {
      const { checks, returns, treatments, ...records } = farmRecords
      const outcomes = [
        ...checks.map((c): ServiceOutcome => ({ kind: 'check', result: c.result, at: noonOf(c.at) })),
        ...returns.map((at): ServiceOutcome => ({ kind: 'return', at: noonOf(at) })),
      ]
      herd.push({
        ...animal,
        records: withFailedServices(records, outcomes),
        treatments,
        heatsSeen: returnsIn(outcomes),
        hours: hoursOf(sensor, locations),
      })
    }
    return herd
  }
  const window = { uid: seed, seed, start, end, intervalMs, batchSize: 1_000_000 }
  const farm = planFarm({ seed, start, end })
  return simulatedHerd(seed, options.animals).map((animal) => {
    const plan = planAnimal(animal, { seed, start, end, profile: options.cycleProfile })
    const sensor: SensorRow[] = []
    const locations: LocationRow[] = []
    for (const batch of simulateReadings(animal, window, { animal: plan, farm })) {
      if (batch.kind === 'sensordata') for (const row of batch.rows) sensor.push(row)
      else for (const row of batch.rows) locations.push(row)
    }
    const farmRecords = planRecords(plan, seed, animal.index, end)
    const outcomes = farmRecords.flatMap((r): ServiceOutcome[] =>
      r.segment === 'pregnancy-checks'
        ? [{ kind: 'check', result: String(r.body.result), at: noonOf(r.at) }]
        : r.segment === 'return-to-estrus'
          ? [{ kind: 'return', at: noonOf(r.at) }]
          : [],
    )
    return {
      index: animal.index,
      sex: animal.Sex,
      group: animal.Group,
      truth: {
        farrowings: plan.farrowings.map((f) => ({ onset: f.onset, weak: f.nestPeakShare < 0.25 })),
        heats: plan.heats.map((h) => ({ onset: h.onset, end: h.end, silent: h.amplitude < 1.15 })),
        lameness: plan.lameness,
      },
      confounders: [...plan.dropouts, ...plan.looseTags, ...plan.fevers],
      records: withFailedServices(
        {
          services: plan.services,
          weanings: plan.weanings.filter((w) => !plan.unrecordedWeanings?.includes(w)),
          births: plan.farrowings.map((f) => f.onset),
        },
        outcomes,
      ),
      treatments: farmRecords.flatMap((r) => (r.segment === 'treatments' ? [r.at] : [])),
      heatsSeen: returnsIn(outcomes),
      hours: hoursOf(sensor, locations),
    }
  })
}

/** The returns to estrus among a farm's outcomes: the heats it saw (served or not), as the accuracy route reads them. */
const returnsIn = (outcomes: readonly ServiceOutcome[]) => outcomes.flatMap((o) => (o.kind === 'return' ? [o.at] : []))

/** The records with the services their checks and returns showed had failed, as the job reads them (recordsOf). */
function withFailedServices(records: AnimalRecords, outcomes: readonly ServiceOutcome[]): AnimalRecords {
  const failed = failedServices(outcomes, records.services)
  return failed.length === 0 ? records : { ...records, failedServices: failed }
}
