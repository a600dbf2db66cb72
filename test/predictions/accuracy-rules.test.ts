// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Matching alarms with the farm's records, on hand-built alarms and events: confirmed within the lead window,
// late after an event, false, missed; merged runs of alarm hours and of records; the summary's figures by hand.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  HOURS_PER_MONTH,
  MATCH_WINDOWS,
  matchAlarms,
  mergeMoments,
  scoredBy,
  summarizeMatches,
} from '../../src/modules/predictions/accuracy.rules.ts'

const H = 3_600_000
const T0 = Date.UTC(2026, 2, 1)
const at = (animalId: number, hours: number) => ({ animalId, at: T0 + hours * H })

describe('merging', () => {
  it('makes a run of alarm hours less than 12 h apart one alarm, from its first hour', () => {
    const hours = [at(1, 0), at(1, 1), at(1, 12), at(1, 30), at(2, 1)]
    assert.deepEqual(mergeMoments(hours, 12 * H), [at(1, 0), at(1, 30), at(2, 1)])
  })
})

describe('matching', () => {
  it('confirms a birth alarm by a birth 0-48 h after it, calls one up to 24 h after a birth late, and the rest false', () => {
    const alarms = [at(1, 0), at(1, 100), at(1, 130), at(2, 0)]
    const births = [at(1, 10), at(1, 110), at(3, 5)]
    assert.deepEqual(
      matchAlarms('birth', alarms, births).map((m) => [m.animalId, m.outcome, m.leadMs === null ? null : m.leadMs / H]),
      [
        [1, 'confirmed', 10],
        [1, 'confirmed', 10],
        [1, 'late', -20],
        [2, 'false', null],
        [3, 'missed', null],
      ],
    )
  })

  it('calls an event unscored when nothing was predicted for its animal around it', () => {
    const spans = [{ animalId: 1, first: T0, last: T0 + 10 * H }]
    const scored = scoredBy(spans, MATCH_WINDOWS.birth)
    const outcomes = matchAlarms('birth', [], [at(1, 20), at(1, 60), at(1, -1), at(2, 5)], MATCH_WINDOWS.birth, scored)
    // Hour 20: scored until 10 h before it (within 48 h); hour 60: the last prediction was 50 h before; hour -1:
    // before the first; animal 2: never predicted.
    assert.deepEqual(
      outcomes.map((m) => m.outcome),
      ['missed', 'unscored', 'unscored', 'unscored'],
    )
  })

  it('gives (class, alarm time, event time) pairs', () => {
    assert.deepEqual(matchAlarms('heat', [at(4, 0)], [at(4, 36)]), [
      {
        classificationType: 'heat',
        animalId: 4,
        alarmAt: T0,
        eventAt: T0 + 36 * H,
        outcome: 'confirmed',
        leadMs: 36 * H,
      },
    ])
    assert.equal(matchAlarms('heat', [at(4, 0)], [at(4, 37)])[0]!.outcome, 'false')
    assert.equal(MATCH_WINDOWS.lameness.leadMs, 7 * 24 * H)
  })
})

describe('summary', () => {
  it('counts alarms and events in the period, the leads of detected events, false alarms per animal-month', () => {
    // Animal 1: two alarms (10 h and 4 h before one birth at hour 10); animal 2: a false alarm; animal 3: a missed
    // birth; animal 4: an alarm before the period for a birth in it (detected, lead 30 h); animal 5: a false
    // alarm after the period (not counted).
    const alarms = [at(1, 0), at(1, 6), at(2, 0), at(4, -20), at(5, 800)]
    const births = [at(1, 10), at(3, 5), at(4, 10)]
    const matches = matchAlarms('birth', alarms, births)
    const summary = summarizeMatches(matches, T0 - H, T0 + 720 * H, 2 * HOURS_PER_MONTH)
    assert.deepEqual(summary, {
      alarms: 3,
      confirmed: 2,
      late: 0,
      falseAlarms: 1,
      events: 3,
      detected: 2,
      missed: 1,
      unscored: 0,
      sensitivity: 0.667,
      precision: 0.667,
      leadHours: { median: 20, min: 10, max: 30 },
      animalMonths: 2,
      falseAlarmsPerAnimalMonth: 0.5,
    })
    assert.equal(summarizeMatches([], T0, T0, 0).sensitivity, null)
  })
})
