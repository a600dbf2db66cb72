// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  alarmRuns,
  alarmStep,
  bandOf,
  DUE_EVENT_HORIZON_DAYS,
  DUE_WINDOW_DAYS,
  dueEventDay,
  dueEventOpensOn,
  isLiveReading,
  isSilent,
  nextBand,
} from '../../src/modules/events/events.rules.ts'
import { inQuietHours, ranksToNotify, ruleProblems, withDefaults } from '../../src/modules/events/alert-rules.rules.ts'
import { AlertRules } from '../../src/modules/events/alert-rules.schemas.ts'
import { CYCLE, dayOf } from '../../src/modules/cycle/cycle.rules.ts'
import { RETENTION_EVENTS_DAYS_MIN } from '../../src/config.ts'
import { alarmLevel } from '../../src/modules/predictions/calibration.rules.ts'

// What is due, and what settles it, are the sow cycle's rules (test/herd/cycle-rules.test.ts, "due items").
describe('due events', () => {
  it('moves the farrowing event earlier by the lead days, and opens an item from its day for 21 days', () => {
    const d = (date: string) => dayOf(date)!
    const farrowing = { kind: 'farrowing' as const, dueDate: d('2026-11-03') }
    const day = dueEventDay(farrowing, 2)
    assert.equal(day, d('2026-11-01'))
    assert.equal(dueEventDay({ kind: 'pregnancyCheck', dueDate: d('2026-08-08') }, 2), d('2026-08-08'))
    const served = d('2026-07-11')
    assert.equal(dueEventOpensOn(day, d('2026-10-31'), served), false)
    assert.equal(dueEventOpensOn(day, d('2026-11-01'), served), true)
    assert.equal(dueEventOpensOn(day, d('2026-11-22'), served), true)
    assert.equal(dueEventOpensOn(day, d('2026-11-23'), served), false)
  })

  it('opens no item more than DUE_EVENT_HORIZON_DAYS after its cause, a bound no valid rules reach', () => {
    const served = dayOf('2026-01-01')!
    const today = served + DUE_EVENT_HORIZON_DAYS
    assert.equal(dueEventOpensOn(today - DUE_WINDOW_DAYS, today, served), true)
    assert.equal(dueEventOpensOn(today - DUE_WINDOW_DAYS + 1, today + 1, served), false)
    // The latest day any accepted rules open an item, and the last day of its window, lie within the horizon.
    const thresholds = AlertRules.properties.thresholds.properties
    const bounds = (name: 'gestationDays' | 'farrowingLeadDays' | 'pregnancyCheckDays' | 'weanedNotServedDays') =>
      thresholds[name] as unknown as { minimum: number; maximum: number }
    const latestOpenDay = Math.max(
      bounds('gestationDays').maximum - bounds('farrowingLeadDays').minimum,
      bounds('pregnancyCheckDays').maximum,
      bounds('weanedNotServedDays').maximum,
    )
    assert.ok(latestOpenDay + DUE_WINDOW_DAYS <= DUE_EVENT_HORIZON_DAYS)
  })

  it('keeps settled events longer than a due event can be derived again (EVENTS_RETENTION_DAYS)', () => {
    assert.ok(RETENTION_EVENTS_DAYS_MIN > DUE_EVENT_HORIZON_DAYS)
  })

  it("takes the alert rules' default cycle figures from the cycle rules", () => {
    const t = withDefaults(undefined).thresholds
    assert.deepEqual(
      [t.gestationDays, t.pregnancyCheckDays, t.weanedNotServedDays],
      [CYCLE.gestationDays, CYCLE.pregnancyCheckFromDays, CYCLE.weanedNotServedDays],
    )
  })
})

describe('temperature bands', () => {
  it("follows the spec's bands: below 0.3 green, 0.3 to 0.6 yellow, above 0.6 red", () => {
    assert.equal(bandOf(0.29, 0.3, 0.6), 'green')
    assert.equal(bandOf(0.3, 0.3, 0.6), 'yellow')
    assert.equal(bandOf(0.6, 0.3, 0.6), 'yellow')
    assert.equal(bandOf(0.61, 0.3, 0.6), 'red')
    assert.equal(bandOf(-1, 0.3, 0.6), 'green')
  })

  it('goes up at once and down only 0.05 past the bound', () => {
    assert.equal(nextBand(0.7, 'green', 0.3, 0.6), 'red')
    assert.equal(nextBand(0.58, 'red', 0.3, 0.6), 'red')
    assert.equal(nextBand(0.54, 'red', 0.3, 0.6), 'yellow')
    assert.equal(nextBand(0.27, 'yellow', 0.3, 0.6), 'yellow')
    assert.equal(nextBand(0.24, 'yellow', 0.3, 0.6), 'green')
    assert.equal(nextBand(0.1, 'red', 0.3, 0.6), 'green')
  })
})

describe('prediction alarms', () => {
  const rule = { threshold: 0.7, hysteresis: 0.1, cooldownMs: 12 * 3_600_000 }
  const H = 3_600_000
  it('raises on the rising edge, clears below threshold − hysteresis, and waits out the cooldown', () => {
    assert.equal(alarmStep(0.69, undefined, rule, 0), 'none')
    assert.equal(alarmStep(0.7, undefined, rule, 0), 'raise')
    assert.equal(alarmStep(0.95, { on: true, since: 0 }, rule, H), 'none')
    assert.equal(alarmStep(0.61, { on: true, since: 0 }, rule, H), 'none')
    assert.equal(alarmStep(0.59, { on: true, since: 0 }, rule, H), 'clear')
    assert.equal(alarmStep(0.9, { on: false, since: 2 * H }, rule, 13 * H), 'none')
    assert.equal(alarmStep(0.9, { on: false, since: 2 * H }, rule, 14 * H), 'raise')
  })

  it('gives the alarms of a series of hourly probabilities as alarmStep raises them: raise to the hour before the clear', () => {
    const rule = { threshold: 0.3, hysteresis: 0.1, cooldownHours: 3 }
    //          0    1    2     3    4    5    6    7    8    9
    const p = [0.1, 0.3, 0.25, 0.19, 0.5, 0.5, 0.5, 0.1, 0.1, 0.4]
    // Raised at 1, on down to 0.2, cleared at 3 (0.19); 4-5 within the 3 h cooldown; raised at 6, cleared at 7; off for
    // 2 h at 9 (cooldown): none.
    assert.deepEqual(alarmRuns(p, 0, 9, rule), [
      [1, 2],
      [6, 6],
    ])
    assert.deepEqual(alarmRuns(p, 4, 9, rule), [[4, 6]], 'from 4 on, nothing before it holds the alarm back')
    assert.deepEqual(alarmRuns([0.3, 0.3], 0, 1, rule), [[0, 1]], 'on to the end')
    assert.deepEqual(alarmRuns([], 0, -1, rule), [])
  })
})

describe('silence', () => {
  it('counts a tag silent from N minutes without data', () => {
    assert.equal(isSilent(0, 59 * 60_000, 60), false)
    assert.equal(isSilent(0, 60 * 60_000, 60), true)
  })
})

describe('live readings', () => {
  it('counts a reading live until it arrives 24 hours after it was taken', () => {
    const hour = 3_600_000
    assert.equal(isLiveReading(0, 24 * hour), true)
    assert.equal(isLiveReading(0, 24 * hour + 1), false)
    assert.equal(isLiveReading(5 * hour, 6 * hour), true, "a gateway's outage of hours stays live")
  })
})

describe('alert rules', () => {
  it('fills in defaults and checks across fields', () => {
    const rules = withDefaults({ thresholds: { heatProbability: 0.8 } })
    assert.equal(rules.thresholds.heatProbability, 0.8)
    // The prediction alarms' defaults are the scorer's alarm levels: a farm is alerted where its figures are measured.
    assert.equal(rules.thresholds.birthProbability, alarmLevel('birth'))
    assert.equal(rules.thresholds.lamenessProbability, alarmLevel('lameness'))
    assert.deepEqual(ruleProblems({ thresholds: { temperatureYellowDelta: 0.6 } }), [
      ['thresholds.temperatureRedDelta', 'must be above temperatureYellowDelta'],
    ])
    assert.deepEqual(ruleProblems({ timeZone: 'Nowhere/Town' }), [['timeZone', 'is not an IANA time zone']])
  })

  it('keeps quiet hours in the rules time zone, over midnight too', () => {
    const rules = withDefaults({ quietHours: { '2': { start: '22:00', end: '06:00' } }, timeZone: 'Europe/Copenhagen' })
    // 21:30 UTC is 22:30 in Copenhagen in winter.
    assert.equal(inQuietHours(rules, 2, Date.parse('2026-11-26T21:30:00Z')), true)
    assert.equal(inQuietHours(rules, 2, Date.parse('2026-11-26T20:30:00Z')), false)
    assert.equal(inQuietHours(rules, 2, Date.parse('2026-11-27T04:59:00Z')), true)
    assert.equal(inQuietHours(rules, 2, Date.parse('2026-11-27T05:00:00Z')), false)
    assert.equal(inQuietHours(rules, 1, Date.parse('2026-11-26T23:00:00Z')), false)
    // 19:30 UTC is 20:30 there: the workers' default quiet hours (20:00-06:00) have begun, the managers' not.
    assert.deepEqual(ranksToNotify(rules, 'temperature-red', Date.parse('2026-11-26T19:30:00Z')), [2])
    assert.deepEqual(ranksToNotify(rules, 'temperature-red', Date.parse('2026-11-26T12:00:00Z')), [2, 3])
  })
})
