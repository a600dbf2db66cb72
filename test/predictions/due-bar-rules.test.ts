// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The due bar's rules on hand-made sows: the windows read from records and stored scores, the replay of a bar (a
// farrowing caught by an alarm's start in the 48 h before onset, alarms started earlier lost), the bar chosen and
// its limits, and where the scorer applies it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  DUE_BAR_LEARNING,
  NO_DUE_BAR,
  dueBarFactor,
  dueWindowOf,
  dueWindows,
  farrowingPeaks,
  learnDueBar,
  replayDueBar,
  type DueWindow,
} from '../../src/modules/predictions/due-bar.rules.ts'
import { SCORER, settingsWithFactors } from '../../src/modules/predictions/scorer-settings.rules.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 0, 5)

/**
 * A sow's due window (day 113-117 after a service at T0 + k days), her hours from 3 days before it to a day after at
 * `quiet`, `noise` (if given) from the window's start to 60 h before onset, and `peak` over the 8 h before onset
 * (onset `onsetDay` days after the service, 115 unless given).
 */
function sow(
  k: number,
  peak: number,
  options: { quiet?: number; noise?: number; farrowed?: boolean; onsetDay?: number } = {},
): DueWindow {
  const service = T0 + k * DAY
  const window = dueWindowOf(service, 115, NO_DUE_BAR)
  const onset = service + (options.onsetDay ?? 115) * DAY
  const hours: { at: number; reach: number }[] = []
  for (let at = window.from - 3 * DAY; at <= window.to + DAY; at += HOUR) {
    let reach = options.quiet ?? 0.1
    if (options.noise !== undefined && at >= window.from && at < onset - 60 * HOUR) reach = options.noise
    if (at > onset - 8 * HOUR && at <= onset) reach = peak
    hours.push({ at, reach })
  }
  return { ...window, hours, farrowing: options.farrowed === false ? undefined : onset }
}

describe('per-farm learning: the due bar', () => {
  it('replays a bar: a farrowing is caught by an alarm starting in the 48 h before onset', () => {
    const windows = [sow(0, 0.8), sow(1, 3), sow(2, 0.4)]
    assert.deepEqual(replayDueBar(windows, 1), { caught: 1, falseAlarms: 0 })
    assert.deepEqual(replayDueBar(windows, 0.7), { caught: 2, falseAlarms: 0 })
    assert.deepEqual(farrowingPeaks(windows), [0.8, 3, 0.4])
  })

  it('counts a farrowing whose alarm the lower bar starts before the 48 h as lost, as the evaluation does', () => {
    // Farrowing on day 117, restless at 0.75 all along: at a bar under it one alarm, started on day 113.
    const early = sow(0, 3, { quiet: 0.75, onsetDay: 117 })
    assert.deepEqual(replayDueBar([early], 1), { caught: 1, falseAlarms: 0 })
    // Missed; the alarm runs into the farrowing's window, so it is no false alarm either.
    assert.deepEqual(replayDueBar([early], 0.7), { caught: 0, falseAlarms: 0 })
    // Without a recorded farrowing every alarm in the window is a false one.
    assert.deepEqual(replayDueBar([sow(0, 3, { farrowed: false })], 1), { caught: 0, falseAlarms: 1 })
  })

  it('keeps the default bar with fewer than minFarrowings farrowings, or when the farm peaks high', () => {
    const few = learnDueBar([0, 1, 2, 3].map((k) => sow(k, 0.8)))
    assert.equal(few.factor, 1)
    assert.match(few.reason, /fewer than 5: the default bar/)
    const strong = learnDueBar(Array.from({ length: 10 }, (_, k) => sow(k, 3)))
    assert.equal(strong.factor, 1)
    assert.equal(strong.peakQuantile, 3)
    assert.match(strong.reason, /90 % of 10 farrowings peaked at 3x the threshold or more/)
  })

  it("lowers the bar just under most farrowings' peaks, part of the way", () => {
    // 16 weak nesters peaking at 0.8x the threshold, 4 at 3x: the bar aims at 0.9 x 0.8 = 0.72, moved 20 / 25 of the way.
    const windows = Array.from({ length: 20 }, (_, k) => sow(k, k < 16 ? 0.8 : 3))
    const learned = learnDueBar(windows)
    assert.equal(learned.peakQuantile, 0.8)
    assert.equal(learned.factor, 0.776)
    assert.equal(learned.caught, 4)
    assert.equal(learned.caughtAtBar, 20)
    assert.equal(learned.falseAlarmsAtBar, 0)
    assert.match(learned.reason, /at 0.72x in the days -2 to \+2 .* caught 20 of them \(4 at the default\)/)
  })

  it('never aims under minFactor, and refuses a bar that would start alarms too early', () => {
    const weak = Array.from({ length: 20 }, (_, k) => sow(k, k < 16 ? 0.3 : 3))
    const floored = learnDueBar(weak)
    assert.equal(floored.factor, 1, 'a bar at 0.5x still misses the 0.3x peaks: nothing gained, the default bar')
    assert.match(floored.reason, /no lower bar there would have caught more/)
    // Farrowing on day 117, restless at 0.74 on days 113-114.5: a bar up to 0.74 adds a false alarm in every window
    // (20) for 16 farrowings gained, over the budget; 0.77 gains them without.
    const restless = Array.from({ length: 20 }, (_, k) => sow(k, k < 16 ? 0.8 : 3, { noise: 0.74, onsetDay: 117 }))
    const learned = learnDueBar(restless)
    assert.match(learned.reason, /at 0.77x/)
    assert.equal(learned.factor, Math.round((1 - 0.8 * 0.23) * 1000) / 1000)
  })

  it("reads each service's window from the records and the stored scores, through the bar in force", () => {
    const service = T0
    const onset = service + 115 * DAY
    const hours: { at: number; raw: number }[] = []
    for (let at = service + 100 * DAY; at <= service + 125 * DAY; at += HOUR) hours.push({ at, raw: 0.2 })
    const records = { services: [service], weanings: [], births: [onset] }
    const period = { from: service + 60 * DAY, to: service + 125 * DAY }
    const inForce = { factor: 0.5, fromDay: -2, toDay: 2 }
    const [window] = dueWindows([{ records, hours }], period, 115, inForce)
    assert.equal(window!.farrowing, onset)
    assert.equal(window!.from, service + 113 * DAY)
    assert.equal(window!.to, service + 117 * DAY)
    const reachAt = (day: number) => window!.hours.find((h) => h.at === service + day * DAY)!.reach
    assert.equal(reachAt(111), 0.25, 'outside the bar: s / T = 0.2 / 0.8')
    assert.equal(reachAt(114), 0.125, 'scored at half the threshold: read back at the default')
    // A later service before the window (a return), or a window whose records are not in yet: no window.
    const returned = { services: [service, service + 21 * DAY], weanings: [], births: [] }
    assert.equal(
      dueWindows([{ records: returned, hours }], period, 115).length,
      0,
      "the return closes the first service's window; the return's own lies past the period",
    )
    assert.equal(dueWindows([{ records, hours }], { ...period, to: service + 118 * DAY }, 115).length, 0)
    const scannedOpen = { ...records, births: [], failedServices: [{ service, from: service + 30 * DAY }] }
    assert.equal(dueWindows([{ records: scannedOpen, hours }], period, 115).length, 0, 'found open: never due')
  })

  it("applies the bar from fromDay to toDay around the farm's gestation, and nowhere by default", () => {
    const settings = settingsWithFactors({ birth: 1, heat: 1, lameness: 1 }, SCORER, 118, {
      factor: 0.6,
      fromDay: DUE_BAR_LEARNING.fromDay,
      toDay: DUE_BAR_LEARNING.toDay,
    })
    // dueDaysSince moves the days by the gestation less 115: 118 days after the service reads as 115.
    assert.equal(dueBarFactor(115, settings), 0.6)
    assert.equal(dueBarFactor(113, settings), 0.6)
    assert.equal(dueBarFactor(117, settings), 0.6)
    assert.equal(dueBarFactor(112.9, settings), 1)
    assert.equal(dueBarFactor(117.1, settings), 1)
    assert.equal(dueBarFactor(undefined, settings), 1)
    assert.equal(dueBarFactor(115, SCORER), 1)
  })
})
