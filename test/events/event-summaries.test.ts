// An event's "why" in words: every kind in every language, from evidence as its producer writes it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EVENT_TYPES, type EventType } from '../../src/modules/events/event-kinds.ts'
import { EVENT_SUMMARIES, eventSummary } from '../../src/modules/events/event-summaries.ts'
import { EVENT_LANGUAGES } from '../../src/modules/events/event-texts.ts'

const at = (ms: number) => new Date(ms).toISOString()
const LAST = Date.UTC(2026, 10, 28, 9, 19, 17)

/** Each kind's evidence, as reading-events.ts, watch-events.ts, prediction-events.ts and due-events.ts write it. */
const EVIDENCE: Record<EventType, Record<string, unknown>> = {
  'temperature-yellow': {
    delta: 0.412,
    currentTemperature: 38.8,
    referenceTemperature: 38.388,
    band: 'yellow',
    previousBand: 'green',
    thresholds: { yellow: 0.3, red: 0.6 },
  },
  'temperature-red': {
    delta: 0.812,
    currentTemperature: 39.2,
    referenceTemperature: 38.388,
    band: 'red',
    previousBand: 'yellow',
    thresholds: { yellow: 0.3, red: 0.6 },
  },
  'temperature-normal': {
    delta: 0.1,
    currentTemperature: 38.5,
    referenceTemperature: 38.4,
    band: 'green',
    previousBand: 'yellow',
    thresholds: { yellow: 0.3, red: 0.6 },
  },
  'heat-alarm': {
    probability: 0.4,
    threshold: 0.2139,
    classificationType: 'heat',
    predictionId: '7',
    predictedAt: at(LAST),
  },
  'birth-alarm': {
    probability: 0.86123,
    threshold: 0.3441,
    classificationType: 'birth',
    predictionId: '8',
    predictedAt: at(LAST),
  },
  'lameness-alarm': {
    probability: 0.7,
    threshold: 0.6423,
    classificationType: 'lameness',
    predictionId: null,
    predictedAt: at(LAST),
  },
  // A litter device's activity window is in Unix seconds.
  'litter-unusual-activity': {
    windowStart: 1795856409,
    windowEnd: 1795860009,
    baselineMean: 0.0305,
    baselineSd: 0.03,
    windowActivity: 0.25,
    deviationSigmas: 24.9,
  },
  'litter-offline': { lastSeen: LAST, offlineMinutes: 40, thresholdMinutes: 30 },
  'litter-online': { lastSeenBefore: LAST, seenAt: LAST + 75 * 60_000, offlineMinutes: 75 },
  'tag-silent': { lastHeard: LAST, silentMinutes: 120, thresholdMinutes: 60 },
  'tag-heard': { lastHeardBefore: LAST, heardAt: LAST + 3_000 * 60_000, silentMinutes: 3_000 },
  'tag-battery-low': { battery: 15, thresholdPercent: 20 },
  'farrowing-due': {
    record: 'insemination',
    recordId: '41',
    recordDate: '2026-08-05',
    dueDate: '2026-11-28',
    expectedFarrowingDate: '2026-11-28',
    gestationDays: 115,
  },
  'pregnancy-check-due': { record: 'insemination', recordId: '42', recordDate: '2026-10-31', dueDate: '2026-11-28' },
  'weaned-not-served': { record: 'weaning', recordId: '43', recordDate: '2026-11-21', dueDate: '2026-11-28' },
}

const summary = (type: string, tag: string, evidence = EVIDENCE[type as EventType]) =>
  eventSummary({ EventType: type, evidence }, tag, at)

describe('event summaries', () => {
  it('says in English why each kind was raised, from the facts of its evidence', () => {
    assert.deepEqual(Object.fromEntries(EVENT_TYPES.map((type) => [type, summary(type, 'en')])), {
      'temperature-yellow': '38.8 °C: 0.41 °C above the reference of 38.39 °C',
      'temperature-red': '39.2 °C: 0.81 °C above the reference of 38.39 °C',
      'temperature-normal': '38.5 °C: back within 0.3 °C of the reference of 38.4 °C',
      'heat-alarm': 'Probability 40%, alarm from 21%',
      'birth-alarm': 'Probability 86%, alarm from 34%',
      'lameness-alarm': 'Probability 70%, alarm from 64%',
      'litter-unusual-activity':
        'Activity 8.2 times the usual between 2026-11-28T09:00:09.000Z and 2026-11-28T10:00:09.000Z',
      'litter-offline': 'No data for 40 minutes; last data 2026-11-28T09:19:17.000Z',
      'litter-online': 'Data again after 75 minutes without',
      'tag-silent': 'Not heard for 2 hours; last heard 2026-11-28T09:19:17.000Z',
      'tag-heard': 'Heard again after 2 days silent',
      'tag-battery-low': 'Battery 15%, below 20%',
      'farrowing-due': 'Served Aug 5, 2026; farrowing expected Nov 28, 2026',
      'pregnancy-check-due': 'Served Oct 31, 2026; check due Nov 28, 2026',
      'weaned-not-served': 'Weaned Nov 21, 2026; not served by Nov 28, 2026',
    })
  })

  it('speaks German, Spanish and Portuguese for every kind, with their numbers, dates and units', () => {
    for (const language of EVENT_LANGUAGES) {
      assert.deepEqual(Object.keys(EVENT_SUMMARIES[language]).sort(), [...EVENT_TYPES].sort(), language)
      for (const type of EVENT_TYPES) {
        const text = summary(type, language)
        assert.ok(text && !/undefined|NaN|\{/.test(text), `${language} ${type}: ${text}`)
      }
    }
    assert.equal(summary('temperature-red', 'de-AT'), '39,2 °C: 0,81 °C über der Referenz von 38,39 °C')
    assert.equal(summary('tag-silent', 'de'), '2 Stunden lang nicht empfangen; zuletzt 2026-11-28T09:19:17.000Z')
    assert.equal(summary('farrowing-due', 'de'), 'Belegt am 05.08.2026; Abferkelung erwartet am 28.11.2026')
    assert.equal(summary('birth-alarm', 'es'), 'Probabilidad 86\u00a0%, alarma desde 34\u00a0%')
    assert.equal(
      summary('weaned-not-served', 'pt-BR'),
      'Desmamada em 21 de nov. de 2026; não coberta até 28 de nov. de 2026',
    )
    assert.equal(summary('tag-heard', 'fr'), 'Heard again after 2 days silent', 'a language not spoken here: English')
  })

  it('counts a quiet litter in standard deviations, where its usual activity was nil', () => {
    assert.equal(
      summary('litter-unusual-activity', 'en', { ...EVIDENCE['litter-unusual-activity'], baselineMean: 0 }),
      'Activity 24.9 standard deviations above the usual between 2026-11-28T09:00:09.000Z and 2026-11-28T10:00:09.000Z',
    )
  })

  it('gives no line for evidence without its facts or a kind it does not know: the caller shows the evidence as it is', () => {
    assert.equal(summary('tag-silent', 'en', { lastHeard: LAST }), undefined)
    assert.equal(summary('temperature-red', 'en', { ...EVIDENCE['temperature-red'], delta: '0.8' }), undefined)
    assert.equal(summary('farrowing-due', 'en', { ...EVIDENCE['farrowing-due'], recordDate: 'last week' }), undefined)
    assert.equal(eventSummary({ EventType: 'tag-silent' }, 'en', at), undefined)
    assert.equal(summary('sow-sang', 'en', { note: 'la' }), undefined)
  })
})
