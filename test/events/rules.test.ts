// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  addDays,
  daysBetween,
  dueItems,
  farrowingDueDate,
  opensOn,
  pregnancyCheckDueDate,
  serviceDueDate,
  type SowRecords,
} from '../../src/modules/events/due-dates.rules.ts'
import { alarmStep, bandOf, isSilent, nextBand } from '../../src/modules/events/events.rules.ts'
import { inQuietHours, ranksToNotify, ruleProblems, withDefaults } from '../../src/modules/events/alert-rules.rules.ts'

const SETTINGS = { gestationDays: 115, pregnancyCheckDays: 28, weanedNotServedDays: 7, farrowingLeadDays: 0 }
const none = (): SowRecords => ({ services: [], births: [], pregnancyChecks: [], returnsToEstrus: [], weanings: [] })

describe('due dates', () => {
  it('adds days across months, years and leap days', () => {
    assert.equal(addDays('2026-07-11', 115), '2026-11-03')
    assert.equal(farrowingDueDate('2026-07-11'), '2026-11-03')
    assert.equal(farrowingDueDate('2026-07-11', 116), '2026-11-04')
    assert.equal(addDays('2027-12-20', 15), '2028-01-04')
    assert.equal(addDays('2028-02-28', 1), '2028-02-29')
    assert.equal(addDays('2026-03-01', -1), '2026-02-28')
    assert.equal(pregnancyCheckDueDate('2026-07-11'), '2026-08-08')
    assert.equal(serviceDueDate('2026-11-30'), '2026-12-07')
    assert.equal(daysBetween('2026-07-11', '2026-11-03'), 115)
    assert.equal(daysBetween('2026-11-03', '2026-07-11'), -115)
  })

  it('makes a service due for a check and a farrowing, settled by a check, a birth, a return or a later service', () => {
    const sow = { ...none(), services: [{ id: 1, day: '2026-07-11' }] }
    const items = dueItems(sow, SETTINGS)
    assert.deepEqual(
      items.map((i) => [i.kind, i.dueDay, i.settledBy]),
      [
        ['farrowing-due', '2026-11-03', undefined],
        ['pregnancy-check-due', '2026-08-08', undefined],
      ],
    )
    const checked = dueItems({ ...sow, pregnancyChecks: [{ id: 2, day: '2026-08-06', result: 'pregnant' }] }, SETTINGS)
    assert.equal(checked[1]!.settledBy?.record, 'pregnancy-check')
    assert.equal(checked[0]!.settledBy, undefined, 'a positive check leaves the farrowing due')
    const open = dueItems({ ...sow, pregnancyChecks: [{ id: 2, day: '2026-08-06', result: 'open' }] }, SETTINGS)
    assert.equal(open[0]!.settledBy?.record, 'pregnancy-check')
    const born = dueItems({ ...sow, births: [{ id: 3, day: '2026-11-02' }] }, SETTINGS)
    assert.deepEqual(born[0]!.settledBy, { record: 'birth', id: 3, day: '2026-11-02' })
    const returned = dueItems({ ...sow, returnsToEstrus: [{ id: 4, day: '2026-08-01' }] }, SETTINGS)
    assert.equal(returned[0]!.settledBy?.record, 'return-to-estrus')
    const reserved = dueItems({ ...sow, services: [...sow.services, { id: 5, day: '2026-08-02' }] }, SETTINGS)
    assert.equal(reserved[0]!.settledBy?.record, 'insemination')
    assert.equal(reserved[2]!.settledBy, undefined, 'the later service is due in its turn')
  })

  it('treats a second service of the same day as the one that counts', () => {
    const items = dueItems(
      {
        ...none(),
        services: [
          { id: 10, day: '2026-07-11' },
          { id: 11, day: '2026-07-11' },
        ],
      },
      SETTINGS,
    )
    assert.deepEqual(
      items.filter((i) => !i.settledBy).map((i) => [i.kind, i.causeId]),
      [
        ['farrowing-due', 11],
        ['pregnancy-check-due', 11],
      ],
    )
  })

  it('makes a weaned sow due for service, settled by a service on or after the weaning', () => {
    const sow = { ...none(), weanings: [{ id: 1, day: '2026-11-30' }] }
    assert.equal(dueItems(sow, SETTINGS)[0]!.dueDay, '2026-12-07')
    assert.equal(
      dueItems({ ...sow, services: [{ id: 2, day: '2026-12-05' }] }, SETTINGS).find(
        (i) => i.kind === 'weaned-not-served',
      )!.settledBy?.id,
      2,
    )
    assert.equal(
      dueItems({ ...sow, services: [{ id: 2, day: '2026-06-05' }] }, SETTINGS).find(
        (i) => i.kind === 'weaned-not-served',
      )!.settledBy,
      undefined,
    )
  })

  it('moves the farrowing event earlier by the lead days, and opens an item from its day for 21 days', () => {
    const items = dueItems(
      { ...none(), services: [{ id: 1, day: '2026-07-11' }] },
      { ...SETTINGS, farrowingLeadDays: 2 },
    )
    const farrowing = items[0]!
    assert.equal(farrowing.dueDay, '2026-11-01')
    assert.equal(opensOn(farrowing, '2026-10-31'), false)
    assert.equal(opensOn(farrowing, '2026-11-01'), true)
    assert.equal(opensOn(farrowing, '2026-11-22'), true)
    assert.equal(opensOn(farrowing, '2026-11-23'), false)
    assert.equal(
      opensOn({ ...farrowing, settledBy: { record: 'birth', id: 2, day: '2026-11-01' } }, '2026-11-02'),
      false,
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
})

describe('silence', () => {
  it('counts a tag silent from N minutes without data', () => {
    assert.equal(isSilent(0, 59 * 60_000, 60), false)
    assert.equal(isSilent(0, 60 * 60_000, 60), true)
  })
})

describe('alert rules', () => {
  it('fills in defaults and checks across fields', () => {
    const rules = withDefaults({ thresholds: { heatProbability: 0.8 } })
    assert.equal(rules.thresholds.heatProbability, 0.8)
    assert.equal(rules.thresholds.birthProbability, 0.7)
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
