// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The farm app's pure rules: the spec's temperature bands, the herd search, record bodies, where the API's
// validation details land (records and alert rules), the alert rules' body (probabilities in percent), the
// event-stream parser and the language choice.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ageOf,
  baseRateWords,
  dueLine,
  lastReadingAt,
  bandOf,
  byUrgency,
  countByMac,
  kindsByMac,
  deltaOf,
  eventHref,
  evidenceText,
  fillPlaceholders,
  matchesSearch,
} from '../../web/src/farm.rules.ts'
import { requestInWords } from '../../web/src/access-log.ts'
import {
  draftsOf,
  percentOf,
  probabilityOf,
  ruleFieldOf,
  ruleMessage,
  rulesBody,
  thresholdInput,
  thresholdUnit,
} from '../../web/src/alert-rules.ts'
import { ANNOUNCE_WITHIN_MS, announcement, worthAnnouncing } from '../../web/src/device-alerts.ts'
import { parseEventBlock } from '../../web/src/event-stream.ts'
import { failureAtFields } from '../../web/src/form-errors.ts'
import { defaultRules } from '../../src/modules/events/alert-rules.rules.ts'
import { LANGUAGES, languageOf } from '../../web/src/i18n.ts'
import { RECORD_KINDS, bodyOf, fieldOfDetail, timelineTime } from '../../web/src/records.ts'

const kind = (key: string) => RECORD_KINDS.find((k) => k.key === key)!

describe('farm app rules', () => {
  it('bands the delta as the spec does: below 0.3 green, 0.3 to 0.6 yellow, above 0.6 red', () => {
    assert.equal(bandOf(38.29, 38), 'green')
    assert.equal(bandOf(38.3, 38), 'yellow')
    assert.equal(bandOf(38.6, 38), 'yellow')
    assert.equal(bandOf(38.61, 38), 'red')
    assert.equal(bandOf(37, 38), 'green')
    assert.equal(bandOf(38, null), 'none')
    assert.equal(bandOf(undefined, 38), 'none')
    assert.equal(deltaOf(38.456, 38), 0.46)
  })

  it('finds an animal by MAC with or without colons, by ID and by group, ignoring case', () => {
    const animal = { ID: 'Sow-17', MAC: 'A4:C1:38:5F:2B:91', Group: 'Farrowing room 2' }
    for (const query of ['a4:c1', 'A4C1385F', '5f2b', 'sow-17', 'room 2', '', '  ']) {
      assert.ok(matchesSearch(animal, query), query)
    }
    assert.equal(matchesSearch(animal, 'gestation'), false)
  })

  it('says why an event was raised in words: times as times, probabilities in %, no internal IDs', () => {
    const at = (ms: number) => new Date(ms).toISOString()
    // A litter device's activity window is in Unix seconds, its last data in ms: both read as times.
    assert.equal(
      evidenceText(
        {
          EventType: 'litter-unusual-activity',
          Scale: 'sigma',
          Value: 24.9,
          evidence: { windowStart: 1795856409, windowEnd: 1795860009, baselineMean: 0.02848, deviationSigmas: 24.9 },
        },
        at,
      ),
      '24.9 sigma · Window start: 2026-11-28T09:00:09.000Z · Window end: 2026-11-28T10:00:09.000Z · Baseline mean: 0.03',
    )
    assert.equal(
      evidenceText(
        {
          EventType: 'litter-offline',
          Scale: 'minutes',
          Value: 40,
          evidence: { lastSeen: 1795857557000, offlineMinutes: 40, thresholdMinutes: 30 },
        },
        at,
      ),
      '40 minutes · Last seen: 2026-11-28T09:19:17.000Z · Threshold minutes: 30',
    )
    assert.equal(
      evidenceText(
        {
          EventType: 'birth-alarm',
          Scale: 'probability',
          Value: 0.861,
          evidence: {
            probability: 0.86123,
            threshold: 0.34,
            predictionId: '812',
            predictedAt: '2026-11-28T10:00:00.000Z',
            thresholds: { birth: 0.34 },
          },
        },
        at,
      ),
      '86 % · Threshold: 34 % · Predicted at: 2026-11-28T10:00:00.000Z',
    )
  })

  it("links an event to its animal, and a litter device's to the devices (its MAC names no animal)", () => {
    assert.equal(
      eventHref({ EventType: 'temperature-red', MAC: '02:AC:02:61:CD:57' }),
      '#/animal/02%3AAC%3A02%3A61%3ACD%3A57',
    )
    assert.equal(eventHref({ EventType: 'litter-offline', MAC: '06:41:39:55:28:57' }), '#/devices')
    assert.equal(eventHref({ EventType: 'litter-unusual-activity', MAC: '06:41:A4:C2:F6:A5' }), '#/devices')
    assert.equal(eventHref({ EventType: 'farrowing-due' }), undefined)
  })

  it("labels every record form field in words, in each of the app's languages (it showed countWeaned, TreatmentInterval)", () => {
    for (const [tag, { texts }] of Object.entries(LANGUAGES)) {
      for (const field of RECORD_KINDS.flatMap((k) => k.fields)) {
        const label = (texts as Record<string, string | undefined>)[`field_${field.name}`]
        assert.ok(label && label.trim() !== '', `${tag}: ${field.name}`)
      }
    }
    const english = LANGUAGES.en!.texts as Record<string, string>
    assert.equal(english.field_weaningWeight, 'Litter weight (kg)')
    assert.equal(english.field_TreatmentInterval, 'Hours between treatments')
  })

  it('orders events by severity, then newest first', () => {
    const events = [
      { id: 'a', severity: 'info', t: 5 },
      { id: 'b', severity: 'critical', t: 1 },
      { id: 'c', severity: 'critical', t: 3 },
      { id: 'd', severity: 'warning', t: 9 },
    ]
    assert.deepEqual(
      events.sort(byUrgency).map((e) => e.id),
      ['c', 'b', 'd', 'a'],
    )
  })

  it("says how long ago in minutes, hours or days, in the user's language", () => {
    const now = Date.UTC(2026, 10, 26, 12)
    assert.equal(ageOf(now - 20_000, now), 'now')
    assert.equal(ageOf(now - 5 * 60_000, now), '5 min. ago')
    assert.equal(ageOf(now - 3 * 3_600_000, now, 'de'), 'vor 3 Std.')
    assert.equal(ageOf(now - 47 * 3_600_000, now, 'pt'), 'há 47 h')
    assert.equal(ageOf(now - 3 * 86_400_000, now, 'es'), 'hace 3 d')
    assert.equal(ageOf(undefined, now), '–')
    // An animal's t is its creation time until its tag's first reading: no reading yet, no time of one.
    assert.equal(lastReadingAt({ t: now, CurrentTemperature: 38.1 }), now)
    assert.equal(lastReadingAt({ t: now }), undefined)
  })

  it("writes a due animal's facts as one line: group, state and its days, the due date and how far from it", () => {
    const item = { MAC: '02:2B:D5:72:C2:FD', Group: 'Pen 2', state: 'served', daysInState: 24, dueDate: '2026-11-23' }
    const en = { state: 'served', days: (n: number) => (n === 1 ? 'day' : 'days'), due: 'Due' }
    assert.equal(
      dueLine({ ...item, daysFromDue: 6 }, en, 'en'),
      'Pen 2 · served · 24 days · Due Nov 23, 2026 (6 days ago)',
    )
    assert.equal(
      dueLine({ ...item, daysFromDue: -1 }, en, 'en'),
      'Pen 2 · served · 24 days · Due Nov 23, 2026 (tomorrow)',
    )
    const de = { state: 'belegt', days: () => 'Tage', due: 'Fällig' }
    assert.equal(dueLine({ ...item, daysFromDue: 0 }, de, 'de'), 'Pen 2 · belegt · 24 Tage · Fällig 23.11.2026 (heute)')
    // A gilt has no days in her state; a group, a date or a distance the API left out is left out.
    assert.equal(dueLine({ daysInState: null, dueDate: 'soon' }, { ...en, state: 'gilt' }, 'en'), 'gilt')
  })

  it("says a farm's lameness base rate against the calibration's farms, or that it is not estimated yet", () => {
    assert.equal(baseRateWords({ shift: 0, share: null }), 'baseRateUnknown')
    assert.equal(baseRateWords({ shift: 0.4, share: 0.051 }), 'baseRateHigher')
    assert.equal(baseRateWords({ shift: -0.2, share: 0.02 }), 'baseRateLower')
    assert.equal(baseRateWords({ shift: 0, share: 0.0282 }), 'baseRateAsFitted')
  })

  it('sends numbers as numbers, leaves empty optional fields out and adds the fixed fields', () => {
    const now = new Date(Date.UTC(2026, 10, 26, 7, 30))
    const body = bodyOf(
      kind('inseminations'),
      { StartDate: '2026-11-26', StartTime: '07:30', Boar: 'Duroc 7', GeneticLine: '', Tubes: '2', serviceType: 'AI' },
      'A4:C1:38:5F:2B:91',
      now,
    )
    assert.deepEqual(body, {
      Archived: false,
      Occupied: true,
      StartDate: '2026-11-26',
      StartTime: '07:30',
      Boar: 'Duroc 7',
      Tubes: 2,
      serviceType: 'AI',
    })
    const treatment = bodyOf(
      kind('treatments'),
      {
        StartDate: '2026-11-20',
        Medicine: 'Meloxicam',
        Diagnose: 'Lame',
        TreatmentAmount: '3',
        TreatmentInterval: '24',
        CustomName: 'Vet',
        Comment: 'hind leg',
      },
      'A4:C1:38:5F:2B:91',
      now,
    )
    assert.equal(treatment.Mac, 'A4:C1:38:5F:2B:91')
    assert.equal(treatment.StartDateSeconds, Date.UTC(2026, 10, 20) / 1000)
    assert.deepEqual(treatment.PhoneHistory, [])
  })

  it('places a validation detail at the form field it names, whatever prefix the API gives it', () => {
    const names = ['Boar', 'Tubes', 'StartDate']
    assert.equal(fieldOfDetail('Tubes', names), 'Tubes')
    assert.equal(fieldOfDetail('body.Tubes', names), 'Tubes')
    assert.equal(fieldOfDetail('/Boar', names), 'Boar')
    assert.equal(fieldOfDetail('ScanningResult.Confirmed', names), undefined)
    assert.equal(fieldOfDetail('query:limit', names), undefined)
  })

  it('puts a record on the timeline at its own date, else at its creation time', () => {
    const created = Date.UTC(2026, 10, 1)
    assert.equal(
      timelineTime(kind('weanings'), { ID: '1', t: created, weaningDate: '2026-10-05' }),
      new Date('2026-10-05T12:00:00').getTime(),
    )
    assert.equal(timelineTime(kind('generalEvents'), { ID: '2', t: created }), created)
    assert.equal(timelineTime(kind('weanings'), { ID: '3', t: created, weaningDate: 'not a date' }), created)
  })

  it('reads an event-stream block: id, event name and data lines, comments skipped', () => {
    assert.deepEqual(parseEventBlock(': keep-alive'), { event: 'message' })
    assert.deepEqual(parseEventBlock('id: 42\nevent: event\ndata: {"a":1}'), {
      id: '42',
      event: 'event',
      data: '{"a":1}',
    })
    assert.deepEqual(parseEventBlock('data: one\r\ndata:two'), { event: 'message', data: 'one\ntwo' })
  })

  it('speaks the language of a BCP 47 tag by its primary subtag, English otherwise', () => {
    assert.equal(languageOf('de-AT'), 'de')
    assert.equal(languageOf('ES'), 'es')
    assert.equal(languageOf('pt_BR'), 'pt')
    assert.equal(languageOf('da'), 'en')
    assert.equal(languageOf(undefined), 'en')
  })

  it('writes the alert rules with the updatedAt they were read at, a threshold that is no number as typed', () => {
    const rules = { ...defaultRules(), updatedAt: 1_700_000_000_000, updatedBy: 'someone' }
    const drafts = { ...draftsOf(rules), birthProbability: ' 70 ', gestationDays: '', batteryPercent: '2O' }
    const body = rulesBody(rules, drafts)
    assert.deepEqual(Object.keys(body).sort(), ['kinds', 'quietHours', 'thresholds', 'timeZone', 'updatedAt'])
    assert.equal(body.updatedAt, 1_700_000_000_000)
    assert.equal(
      rulesBody({ ...rules, updatedAt: null }, drafts).updatedAt,
      null,
      'never written: null, so a first save by someone else is caught too',
    )
    assert.equal(body.thresholds.birthProbability, 0.7)
    assert.equal(body.thresholds.gestationDays, '')
    assert.equal(body.thresholds.batteryPercent, '2O')
    assert.equal(body.thresholds.temperatureRedDelta, rules.thresholds.temperatureRedDelta)
  })

  it('shows the probabilities in percent and writes them back as the API keeps them, 0–1 to 4 decimals', () => {
    assert.equal(percentOf(0.2139), 21.39)
    assert.equal(probabilityOf(21.39), 0.2139)
    assert.equal(probabilityOf(0.7), 0.007)
    assert.equal(probabilityOf(12.345), 0.1235, 'to the API’s precision, no float noise')
    // Every value the API stores (4 decimals) round-trips through the form's 2 decimals of a percent.
    for (let i = 0; i <= 10_000; i++) assert.equal(probabilityOf(percentOf(i / 10_000)), i / 10_000)
    const rules = {
      ...defaultRules(),
      thresholds: { ...defaultRules().thresholds, heatProbability: 0.2139 },
      updatedAt: null,
      updatedBy: null,
    }
    const drafts = draftsOf(rules)
    assert.equal(drafts.heatProbability, '21.39')
    assert.equal(drafts.probabilityHysteresis, '5', 'percentage points')
    assert.equal(drafts.temperatureRedDelta, '0.6')
    const body = rulesBody(rules, { ...drafts, lamenessProbability: '33.3', probabilityHysteresis: '2.5' })
    assert.equal(body.thresholds.heatProbability, 0.2139)
    assert.equal(body.thresholds.lamenessProbability, 0.333)
    assert.equal(body.thresholds.probabilityHysteresis, 0.025)
    // A value of more decimals than the form shows (an integrator's) is not rounded by saving something else.
    const finer = { ...rules, thresholds: { ...rules.thresholds, birthProbability: 0.123456 } }
    assert.equal(draftsOf(finer).birthProbability, '12.35')
    assert.equal(rulesBody(finer, draftsOf(finer)).thresholds.birthProbability, 0.123456)
    assert.equal(
      rulesBody(finer, { ...draftsOf(finer), birthProbability: '12.34' }).thresholds.birthProbability,
      0.1234,
    )
  })

  it('gives a probability input bounds in percent and a unit in words, and its API message the bound in percent', () => {
    assert.deepEqual(thresholdInput('heatProbability'), { min: 0, max: 100, step: 0.01 })
    assert.deepEqual(thresholdInput('probabilityHysteresis'), { min: 0, max: 50, step: 0.01 })
    assert.deepEqual(thresholdInput('gestationDays'), { min: 100, max: 130, step: 1 })
    assert.deepEqual(thresholdInput('temperatureRedDelta'), { min: 0, max: 5, step: 'any' })
    assert.equal(thresholdUnit('birthProbability'), 'probability')
    assert.equal(thresholdUnit('probabilityHysteresis'), 'percentagePoints')
    assert.equal(LANGUAGES.de!.texts.unit_percentagePoints, '(Prozentpunkte)')
    assert.equal(ruleMessage('thresholds.heatProbability', 'must be <= 1'), 'must be <= 100')
    assert.equal(ruleMessage('thresholds.heatProbability', 'must be > 0'), 'must be > 0')
    assert.equal(ruleMessage('thresholds.probabilityHysteresis', 'must be <= 0.5'), 'must be <= 50')
    assert.equal(
      ruleMessage('thresholds.probabilityHysteresis', 'must be below heatProbability'),
      'must be below heatProbability',
    )
    assert.equal(ruleMessage('thresholds.gestationDays', 'must be <= 130'), 'must be <= 130')
    assert.equal(ruleMessage('thresholds.toString', 'must be <= 1'), 'must be <= 1')
    assert.equal(ruleMessage('timeZone', 'must be <= 1'), 'must be <= 1')
  })

  it("puts an alert-rules detail at the field it names, whatever the path's form", () => {
    assert.equal(ruleFieldOf('thresholds.birthProbability'), 'thresholds.birthProbability')
    assert.equal(ruleFieldOf('quietHours[3]'), 'quietHours.3')
    assert.equal(ruleFieldOf('quietHours[2].start'), 'quietHours.2')
    assert.equal(ruleFieldOf('kinds.heat-alarm.notifyRanks[0]'), 'kinds.heat-alarm')
    assert.equal(ruleFieldOf('timeZone'), 'timeZone')
    assert.equal(ruleFieldOf('(root)'), undefined)
    assert.equal(ruleFieldOf('thresholds'), undefined)
  })

  it("says an integrator's logged request in words, the noun from the template's last named segment", () => {
    const words = (method: string, endpoint: string) => {
      const found = requestInWords(method, endpoint)
      return found && `${LANGUAGES.en!.texts[found.verb]}: ${LANGUAGES.en!.texts[found.noun]}`
    }
    assert.equal(words('GET', '/api/v1/users/:userId/animals'), 'Read: animals')
    assert.equal(words('GET', '/api/v1/users/:userId/animals/search'), 'Read: animals')
    assert.equal(words('POST', '/api/v1/users/:userId/litterguards/:macAddress/sensordata'), 'Added: sensor data')
    assert.equal(words('GET', '/api/v1/users/:userId/animals/:animalMac/sensordata/latest'), 'Read: sensor data')
    assert.equal(words('PATCH', '/api/v1/users/:userId/animals/:animalMac/births/:birthId'), 'Changed: Farrowing')
    assert.equal(words('DELETE', '/api/v1/users/:userId/treatments/:treatmentId'), 'Deleted: Treatment')
    assert.equal(words('PATCH', '/api/v1/users/:userId'), 'Changed: the farm account')
    assert.equal(words('GET', '/api/v1/users/:userId/something-new'), undefined)
    assert.equal(words('GET', '/api/v1/tokens/usage'), undefined)
    assert.equal(words('OPTIONS', '/api/v1/users/:userId/animals'), undefined)
  })

  it("puts a refusal's details at the fields they name, and says the rest above the form", () => {
    const fieldOf = (field: string) => (field.startsWith('thresholds.') ? field : undefined)
    const message = 'Validation failed'
    const detail = (field: string, text: string) => ({ field, message: text })
    assert.deepEqual(
      failureAtFields(
        { message, details: [detail('thresholds.a', 'must be > 0'), detail('thresholds.a', 'must be <= 5')] },
        fieldOf,
      ),
      { atFields: { 'thresholds.a': 'must be > 0; must be <= 5' }, formError: undefined },
    )
    assert.deepEqual(
      failureAtFields({ message, details: [detail('thresholds.a', 'must be > 0'), detail('(root)', 'odd')] }, fieldOf),
      { atFields: { 'thresholds.a': 'must be > 0' }, formError: 'Validation failed · (root): odd' },
    )
    assert.deepEqual(failureAtFields({ message: 'No connection', details: [] }, fieldOf), {
      atFields: {},
      formError: 'No connection',
    })
  })

  it('announces on this device what needs attention and is new, by its title in the language, its animal and why', () => {
    const now = 1_800_000_000_000
    const alarm = {
      ID: '7',
      EventType: 'birth-alarm',
      MAC: 'A4:C1:38:5F:2B:91',
      Group: 'Room 2',
      createdAt: now - 1000,
    }
    assert.equal(worthAnnouncing({ ...alarm, severity: 'warning', status: 'open' }, now), true)
    assert.equal(worthAnnouncing({ ...alarm, severity: 'critical' }, now), true)
    assert.equal(worthAnnouncing({ ...alarm, status: 'resolved' }, now), false, 'an all-clear arrives resolved')
    assert.equal(worthAnnouncing({ ...alarm, severity: 'info' }, now), false, 'a pregnancy check due')
    assert.equal(worthAnnouncing({ ...alarm, createdAt: now - ANNOUNCE_WITHIN_MS - 1 }, now), false, 'replayed')
    assert.deepEqual(announcement(alarm, 'Sow 17', 'de-AT'), { title: 'Abferkelung erwartet', body: 'Sow 17 · Room 2' })
    assert.deepEqual(announcement({ ...alarm, Group: undefined }, undefined, 'en'), {
      title: 'Farrowing expected',
      body: 'A4:C1:38:5F:2B:91',
    })
    // Why, as the service's push messages say it.
    const evidence = { probability: 0.86, threshold: 0.3441 }
    assert.deepEqual(announcement({ ...alarm, evidence }, 'Sow 17', 'en'), {
      title: 'Farrowing expected',
      body: 'Sow 17 · Room 2 · Probability 86%, alarm from 34%',
    })
  })

  it("fills a key figure's basis from its counts, with the word of each number, and gives none with a count missing", () => {
    const isOne = (n: number) => new Intl.PluralRules('en').select(n) === 'one'
    const fill = (template: string, values: Record<string, unknown>) =>
      fillPlaceholders(template, values, (v) => String(v), isOne)
    assert.equal(fill('{bornAlive} in {litters|litter|litters}', { bornAlive: 12, litters: 1 }), '12 in 1 litter')
    assert.equal(fill('{bornAlive} in {litters|litter|litters}', { bornAlive: 0, litters: 0 }), '0 in 0 litters')
    assert.equal(fill('{farrowed} of {matings|mating|matings}', { farrowed: 351, matings: 412 }), '351 of 412 matings')
    assert.equal(fill('{died} of {nursed}', { died: null, nursed: 3 }), undefined)
    assert.equal(fill('{died} of {nursed}', { nursed: 3 }), undefined)
    // Every language has a basis for every key figure, its placeholders the API's count names.
    const counts = ['farrowed', 'matings', 'servedFrom', 'servedTo', 'litters', 'weaned', 'days', 'services']
    const known = new Set([...counts, 'returns', 'regularReturns', 'bornAlive', 'stillborn', 'died', 'nursed'])
    for (const [tag, { texts }] of Object.entries(LANGUAGES)) {
      const bases = Object.entries(texts).filter(([key]) => key.startsWith('kpiBasis_'))
      assert.equal(bases.length, 9, tag)
      for (const [key, template] of bases)
        for (const [, name] of template.matchAll(/\{(\w+)/g)) assert.ok(known.has(name!), `${tag} ${key}: ${name}`)
    }
  })

  it('counts the alerts that need attention by the tag they name, an event of no tag left out', () => {
    const counts = countByMac([{ MAC: 'A' }, { MAC: 'B' }, { MAC: 'A' }, {}])
    assert.deepEqual(
      [...counts],
      [
        ['A', 2],
        ['B', 1],
      ],
    )
    const kinds = kindsByMac([
      { MAC: 'D1', EventType: 'litter-offline' },
      { MAC: 'D1', EventType: 'litter-unusual-activity' },
      { MAC: 'D1', EventType: 'litter-offline' },
      { EventType: 'tag-silent' },
    ])
    assert.deepEqual([...kinds], [['D1', ['litter-offline', 'litter-unusual-activity']]])
  })
})
