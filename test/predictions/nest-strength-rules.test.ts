// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The nest-building strength's rules on hand-made sows: a CUSUM's reference at a strength, an hour's score replayed
// from the scorer's birth trace, the strength chosen from the farm's farrowings and its limits, and that the scorer
// reads the learned references in the due days only.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  NEST_STRENGTH_LEARNING,
  learnNestStrength,
  learnNestStrengthFromTrace,
  recordedDueFarrowings,
  strengthReference,
  strengthsTried,
  traceReach,
  type BirthTraceHour,
} from '../../src/modules/predictions/nest-strength.rules.ts'
import { dueWindowOf, NO_DUE_BAR, type DueWindow } from '../../src/modules/predictions/due-bar.rules.ts'
import { SCORER, settingsWithFactors } from '../../src/modules/predictions/scorer-settings.rules.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 0, 5)

const hour = (at: number, over: Partial<BirthTraceHour> = {}): BirthTraceHour => ({
  at,
  raw: 0,
  ratio: 1,
  shortRatio: 1,
  blocked: false,
  threshold: 3,
  shortThreshold: 1.5,
  lastDay: 0,
  bar: 1,
  due: true,
  ...over,
})

/**
 * A sow served at T0 + k days who farrows 115 days later: her trace from 4 days before her due days (113-117) to 2
 * days after, a short-CUSUM ratio of `rise` over the 12 h before onset and 1 elsewhere, the due days flagged.
 */
function traced(k: number, rise: number) {
  const service = T0 + k * DAY
  const window = dueWindowOf(service, 115, NO_DUE_BAR)
  const onset = service + 115 * DAY
  const trace: BirthTraceHour[] = []
  for (let at = window.from - 4 * DAY; at <= window.to + 2 * DAY; at += HOUR) {
    const nesting = at > onset - 12 * HOUR && at <= onset
    trace.push(hour(at, { shortRatio: nesting ? rise : 1, due: at >= window.from && at <= window.to, raw: 0.01 }))
  }
  return { records: { services: [service], weanings: [], births: [onset] }, trace }
}

/**
 * A due window whose farrowing (115 days after the service) peaks at `peak` x the threshold 8 h before onset; its
 * hours from 3 days before the window to 60 h before onset at `quiet`, the others at 0.1x.
 */
function window(k: number, peak: number, quiet = 0.1): DueWindow {
  const service = T0 + k * DAY
  const w = dueWindowOf(service, 115, NO_DUE_BAR)
  const onset = service + 115 * DAY
  const hours: { at: number; reach: number }[] = []
  for (let at = w.from - 3 * DAY; at <= w.to + DAY; at += HOUR)
    hours.push({ at, reach: at > onset - 8 * HOUR && at <= onset ? peak : at < onset - 60 * HOUR ? quiet : 0.1 })
  return { ...w, hours, farrowing: onset }
}

describe('per-farm learning: the nest-building strength', () => {
  it("scales each reference's excess over 1, and tries strengths from 1 down to its floor", () => {
    assert.equal(strengthReference(1.6, 1), 1.6)
    assert.ok(Math.abs(strengthReference(1.6, 0.75) - 1.45) < 1e-12)
    assert.ok(Math.abs(strengthReference(1.4, 0.625) - 1.25) < 1e-12)
    assert.deepEqual(strengthsTried(), [1, 0.9375, 0.875, 0.8125, 0.75, 0.6875, 0.625])
  })

  it("replays an hour's score from the trace: the CUSUMs at the strength in the due days, the stored score elsewhere", () => {
    // Six hours at 1.3x her crate days: under the short CUSUM's 1.4x nothing grows; at 1.25x each adds ln(1.3/1.25).
    const trace = Array.from({ length: 6 }, (_, n) => hour(n * HOUR, { ratio: 1.3, shortRatio: 1.3 }))
    assert.equal(traceReach(trace, 5, 1), 0)
    const level = 6 * Math.log(1.3 / 1.25)
    assert.ok(Math.abs(traceReach(trace, 5, 0.625) - level / 1.5) < 1e-12)
    // The due bar in force (0.5) is taken out: the reach is in units of the threshold without it.
    const barred = trace.map((h) => ({ ...h, bar: 0.5, shortThreshold: 0.75 }))
    assert.ok(Math.abs(traceReach(barred, 5, 0.625) - level / 1.5) < 1e-12)
    // An hour that cannot alarm stays at 0; an hour outside the due days keeps its stored score (raw 0.5: 1x).
    assert.equal(traceReach([...trace.slice(0, 5), hour(5 * HOUR, { blocked: true, shortRatio: 1.3 })], 5, 0.625), 0)
    assert.equal(traceReach([...trace.slice(0, 5), hour(5 * HOUR, { due: false, raw: 0.5 })], 5, 0.625), 1)
    // The last-day CUSUM's score counts as stored (raw 0.6: 1.5x).
    assert.ok(Math.abs(traceReach([hour(0, { lastDay: 0.6 })], 0, 1) - 1.5) < 1e-12)
  })

  it('keeps strength 1 with fewer than minFarrowings farrowings, or when the farm reaches the bar at the defaults', () => {
    const few = learnNestStrength(() => [0, 1, 2, 3].map((k) => window(k, 0.5)), 1)
    assert.equal(few.strength, 1)
    assert.match(few.reason, /^4 farrowings .* fewer than 5: the defaults' references$/)
    const strong = learnNestStrength(() => Array.from({ length: 10 }, (_, k) => window(k, 3)), 1)
    assert.deepEqual([strong.strength, strong.supported, strong.caught], [1, 1, 10])
    assert.match(strong.reason, /^90 % of 10 farrowings reached the bar at the defaults' references: strength 1$/)
  })

  it('weakens the references where farrowings reach the bar only at a lower strength, part of the way', () => {
    // Eight farrowings peak at 3x at any strength; two at 0.5x at the defaults and 1.5x from strength 0.75 down.
    const windowsAt = (s: number) =>
      Array.from({ length: 10 }, (_, k) => window(k, k < 8 || s > 0.75 ? (k < 8 ? 3 : 0.5) : 1.5))
    const learned = learnNestStrength(windowsAt, 1)
    // The lowest tenth supports 0.75; replayed there 10 caught against 8, no false alarm more; 10 / 15 of the way.
    assert.equal(learned.supported, 0.75)
    assert.equal(learned.strength, 0.833)
    assert.deepEqual([learned.caught, learned.falseAlarms, learned.falseAlarmsAtStrength], [8, 0, 0])
    // At 0.833 itself the two weak farrowings are not reached: few records move it only part of the way.
    assert.equal(learned.caughtAtStrength, 8)
    assert.match(learned.reason, /at 0.75 \(references 1.45x and 1.3x\) .* caught 10 of them \(8 at the defaults'\)/)
  })

  it('refuses a strength that buys a farrowing with more than one false alarm', () => {
    // As above, but from strength 0.75 down every sow's days before her farrowing's window rise to 1.2x: ten false
    // alarms for two farrowings.
    const windowsAt = (s: number) =>
      Array.from({ length: 10 }, (_, k) => window(k, k < 8 ? 3 : s > 0.75 ? 0.5 : 1.5, s > 0.75 ? 0.1 : 1.2))
    const learned = learnNestStrength(windowsAt, 1)
    assert.equal(learned.strength, 1)
    assert.match(
      learned.reason,
      /no weaker strength there would have caught more without more than one false alarm for each: strength 1$/,
    )
  })

  it("learns from the trace: weak nesters' small sustained rise reached at a lower short-CUSUM reference", () => {
    // Five sows rise to 1.35x their crate days over the last 12 h before farrowing: under 1.4x at strength 1, so the
    // short CUSUM stays at 0; at the lowest strength tried, 0.625 (1.25x), it reaches 6 ln(1.35/1.25) = 0.46 over 6 h,
    // 0.31x its threshold (1.5 here): under the default bar, so no strength gains a farrowing.
    const sows = [0, 1, 2, 3, 4].map((k) => traced(k, 1.35))
    const period = { from: T0 + 100 * DAY, to: T0 + 130 * DAY }
    assert.equal(recordedDueFarrowings(sows, period, 115), 5)
    const weak = learnNestStrengthFromTrace(sows, period, 115, 1)
    assert.deepEqual([weak.strength, weak.supported, weak.caught], [1, 0.625, 0])
    // With the farm's due bar at 0.3, strength 0.625 catches all five (none at 1): 5 / 10 of the way, 0.8125.
    const barred = learnNestStrengthFromTrace(sows, period, 115, 0.3)
    assert.deepEqual([barred.supported, barred.caught, barred.falseAlarms], [0.625, 0, 0])
    assert.equal(barred.strength, 0.813)
    assert.match(barred.reason, /would have caught 5 of them \(0 at the defaults'\)/)
  })

  it('applies the strength to both CUSUMs in the due days only, through the farm settings', () => {
    const farm = settingsWithFactors({ birth: 1, heat: 1, lameness: 1 }, SCORER, 115, SCORER.birth.dueBar, 0.75)
    assert.equal(farm.birth.dueStrength, 0.75)
    assert.equal(farm.birth.reference, SCORER.birth.reference, 'the long reference outside the due days')
    assert.equal(SCORER.birth.dueStrength, 1)
    assert.ok(NEST_STRENGTH_LEARNING.minStrength * (SCORER.birth.short.reference - 1) + 1 >= 1.25)
  })
})
