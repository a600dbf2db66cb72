// The simulators' random draws: seeded streams (one per purpose, so that adding one changes no other) and the
// distributions drawn from them.
import { createHash } from 'node:crypto'

/** A 32-bit seed from its parts: each stream of draws has its own. */
export function seedOf(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join(':')).digest().readUInt32BE(0)
}

/** mulberry32: small, fast, good enough for simulated noise. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
}

export const uniform = (random: () => number, min: number, max: number) => min + random() * (max - min)

/** Tiers of a uniform draw: the first tier whose cumulative share `upTo` a first draw falls under gives the range. */
export type Tiers = readonly (readonly [upTo: number, min: number, max: number])[]
export const tieredUniform = (random: () => number, tiers: Tiers) => {
  const draw = random()
  const [, min, max] = tiers.find(([upTo]) => draw < upTo) ?? tiers[tiers.length - 1]!
  return uniform(random, min, max)
}
