// The evaluation's statistics: confidence intervals for proportions and rates, a bootstrap for medians, the area
// under the ROC curve and a reliability table. Pure functions; the evaluation reports every figure with its interval.
import { prng } from './random.ts'

const Z95 = 1.959964

/** Wilson score interval (95 %) of k successes in n trials; null without trials. */
export function wilson(k: number, n: number): [number, number] | null {
  if (n === 0) return null
  const p = k / n
  const z2 = Z95 * Z95
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n)
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n)
  return [Math.max(0, centre - half), Math.min(1, centre + half)]
}

/** 95 % interval of a Poisson count k (Wilson-Hilferty's approximation of the exact interval), divided by exposure. */
export function poissonRate(k: number, exposure: number): [number, number] | null {
  if (exposure <= 0) return null
  const lower = k === 0 ? 0 : k * (1 - 1 / (9 * k) - Z95 / (3 * Math.sqrt(k))) ** 3
  const k1 = k + 1
  const upper = k1 * (1 - 1 / (9 * k1) + Z95 / (3 * Math.sqrt(k1))) ** 3
  return [lower / exposure, upper / exposure]
}

export function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Percentile bootstrap (95 %, 1,000 resamples, fixed seed) of the median. */
export function bootstrapMedian(values: readonly number[]): [number, number] | null {
  if (values.length < 2) return null
  const random = prng(values.length * 7919)
  const medians: number[] = []
  for (let r = 0; r < 1000; r++) {
    const sample = values.map(() => values[Math.floor(random() * values.length)]!)
    medians.push(medianOf(sample)!)
  }
  medians.sort((a, b) => a - b)
  return [medians[25]!, medians[974]!]
}

/** Area under the ROC curve: the chance that a random positive scores above a random negative (ties count half). */
export function auc(positives: readonly number[], negatives: readonly number[]): number | null {
  if (positives.length === 0 || negatives.length === 0) return null
  const all = [...positives.map((s) => [s, 1] as const), ...negatives.map((s) => [s, 0] as const)].sort(
    (a, b) => a[0] - b[0],
  )
  let rankSum = 0
  for (let i = 0; i < all.length;) {
    let j = i
    while (j < all.length && all[j]![0] === all[i]![0]) j++
    const rank = (i + 1 + j) / 2
    for (let k = i; k < j; k++) if (all[k]![1] === 1) rankSum += rank
    i = j
  }
  const p = positives.length
  return (rankSum - (p * (p + 1)) / 2) / (p * negatives.length)
}

export interface ReliabilityBin {
  /** Lower edge of the bin (width 0.1; the last includes 1). */
  from: number
  hours: number
  meanPredicted: number
  observed: number
}

/** Reliability per 0.1-wide probability bin, and the mean |predicted − observed| over bins with at least minCount hours. */
export function reliability(
  pairs: readonly (readonly [predicted: number, event: boolean])[],
  minCount = 30,
): { bins: ReliabilityBin[]; meanAbsoluteError: number | null } {
  const sums = Array.from({ length: 10 }, () => ({ n: 0, p: 0, e: 0 }))
  for (const [p, e] of pairs) {
    const bin = sums[Math.min(9, Math.floor(p * 10))]!
    bin.n++
    bin.p += p
    if (e) bin.e++
  }
  const bins = sums.flatMap((b, i) =>
    b.n === 0 ? [] : [{ from: i / 10, hours: b.n, meanPredicted: b.p / b.n, observed: b.e / b.n }],
  )
  const counted = bins.filter((b) => b.hours >= minCount)
  return {
    bins,
    meanAbsoluteError:
      counted.length === 0
        ? null
        : counted.reduce((s, b) => s + Math.abs(b.meanPredicted - b.observed), 0) / counted.length,
  }
}

/**
 * Isotonic regression (pool-adjacent-violators) of events on scores, as calibration knots [score, share of events]:
 * scores pooled per 0.05, blocks merged while a lower score's share of events is not below a higher one's, and
 * blocks of fewer than minHours merged into a neighbour (a share of a few hours is noise). Both coordinates strictly
 * rising (a share at least 0.0005 above the one before), so that the map can be inverted.
 */
export function isotonicKnots(
  pairs: readonly (readonly [score: number, event: boolean])[],
  minHours = 300,
): [number, number][] {
  return farmAveragedKnots([pairs], { minHours })
}

/**
 * Isotonic knots over several farms (or conditions of one), each farm counting alike at every score: a 0.05 score
 * bin's share of events is the mean of the farms' shares there, each weighted n / (n + farmHours) by its n hours in
 * the bin (a farm with a few hours there says little), so that a farm with many hours at a score (longer false
 * alarms, say) does not outvote the others. Then as isotonicKnots (one farm: the same knots).
 * `kinds`: each farm's kind of farm (a profile). Given, every kind counts alike: a bin's share is the mean of the
 * kinds' shares (each its farms' weighted mean), each kind weighted by its farms' mean weight there, so that a kind
 * with more herds in the fit (more seeds, more sample rates) does not outvote the others.
 */
export function farmAveragedKnots(
  farms: readonly (readonly (readonly [score: number, event: boolean])[])[],
  { minHours = 300, farmHours = 30, kinds }: { minHours?: number; farmHours?: number; kinds?: readonly string[] } = {},
): [number, number][] {
  const bins = new Map<number, { n: number; score: number; farms: { n: number; events: number }[] }>()
  farms.forEach((pairs, f) => {
    for (const [p, e] of pairs) {
      const key = Math.round(p * 20)
      let b = bins.get(key)
      if (b === undefined) bins.set(key, (b = { n: 0, score: 0, farms: farms.map(() => ({ n: 0, events: 0 })) }))
      b.n++
      b.score += p
      b.farms[f]!.n++
      if (e) b.farms[f]!.events++
    }
  })
  const farmShare = (perFarm: readonly { n: number; events: number }[]) => {
    let weights = 0
    let sum = 0
    for (const { n, events } of perFarm) {
      if (n === 0) continue
      const weight = n / (n + farmHours)
      weights += weight
      sum += (weight * events) / n
    }
    return { weight: weights / perFarm.length, share: sum / weights }
  }
  const kindsOf = kinds === undefined ? undefined : [...new Set(kinds)]
  const shareOf = (perFarm: readonly { n: number; events: number }[]) => {
    if (perFarm.length === 1) return perFarm[0]!.events / perFarm[0]!.n
    if (kindsOf === undefined) return farmShare(perFarm).share
    let weights = 0
    let sum = 0
    for (const kind of kindsOf) {
      const ofKind = perFarm.filter((_, f) => kinds![f] === kind)
      if (ofKind.every(({ n }) => n === 0)) continue
      const { weight, share } = farmShare(ofKind)
      weights += weight
      sum += weight * share
    }
    return sum / weights
  }
  // A block: its hours, their summed score, and its share (of merged blocks: their shares weighted by hours).
  type Block = { n: number; score: number; share: number }
  const merge = (a: Block, b: Block): Block => ({
    n: a.n + b.n,
    score: a.score + b.score,
    share: (a.share * a.n + b.share * b.n) / (a.n + b.n),
  })
  const blocks: Block[] = []
  for (const [, b] of [...bins].sort(([a], [c]) => a - c)) {
    blocks.push({ n: b.n, score: b.score, share: shareOf(b.farms) })
    while (blocks.length >= 2 && blocks.at(-2)!.share >= blocks.at(-1)!.share)
      blocks.push(merge(blocks.pop()!, blocks.pop()!))
  }
  for (let k = 0; k < blocks.length && blocks.length > 1;) {
    if (blocks[k]!.n >= minHours) {
      k++
      continue
    }
    const into = k === blocks.length - 1 ? k - 1 : k + 1
    blocks.splice(Math.min(k, into), 2, merge(blocks[k]!, blocks[into]!))
    k = Math.max(0, Math.min(k, into) - 1)
  }
  const knots: [number, number][] = []
  for (const b of blocks) {
    const score = Math.round((b.score / b.n) * 1000) / 1000
    const observed = Math.round(b.share * 10_000) / 10_000
    const before = knots.at(-1)
    if (before && score <= before[0]) continue
    knots.push([score, before ? Math.max(observed, Math.round((before[1] + 0.0005) * 10_000) / 10_000) : observed])
  }
  return knots
}

/**
 * A 95 % interval of the calibration error (reliability's mean |predicted − observed|) by resampling whole animals
 * (an animal's hours are not independent of each other), 200 resamples.
 */
export function bootstrapCalibration(
  byAnimal: readonly (readonly (readonly [number, boolean])[])[],
): [number, number] | null {
  if (byAnimal.length < 2) return null
  const random = prng(byAnimal.length * 104_729)
  const errors: number[] = []
  for (let r = 0; r < 200; r++) {
    const sample: (readonly [number, boolean])[] = []
    for (let k = 0; k < byAnimal.length; k++)
      for (const pair of byAnimal[Math.floor(random() * byAnimal.length)]!) sample.push(pair)
    const error = reliability(sample).meanAbsoluteError
    if (error !== null) errors.push(error)
  }
  if (errors.length < 20) return null
  errors.sort((a, b) => a - b)
  return [errors[Math.floor(errors.length * 0.025)]!, errors[Math.ceil(errors.length * 0.975) - 1]!]
}

/** Figures and intervals as the reports print them: to one, two or three decimals (null stays null). */
export const round1 = (x: number) => Math.round(x * 10) / 10
export const round2 = (x: number) => Math.round(x * 100) / 100
export const round3 = (x: number) => Math.round(x * 1000) / 1000
type Pair = [number, number] | null
const roundPair =
  (round: (x: number) => number) =>
  (p: Pair): Pair =>
    p === null ? null : [round(p[0]), round(p[1])]
export const round1Pair = roundPair(round1)
export const round2Pair = roundPair(round2)
export const round3Pair = roundPair(round3)
