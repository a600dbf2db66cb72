// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The values the farm app offers in its record forms' lists (a check's result and method, a stage, AI or natural)
// read in the user's language, in the forms and on the animal's timeline; a value typed in stays as it was typed.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { LANGUAGES, setLanguage } from '../../web/src/i18n.ts'
import { RECORD_KINDS, optionText, optionsWith, type FarmRecord } from '../../web/src/records.ts'

const kind = (key: string) => RECORD_KINDS.find((k) => k.key === key)!
const record = (fields: Record<string, unknown>): FarmRecord => ({ ID: '1', t: 0, ...fields })

describe("record forms' listed values", () => {
  after(() => setLanguage('en'))

  it('has words in every language for every value a form lists', () => {
    const offered = RECORD_KINDS.flatMap((k) => k.fields.flatMap((f) => f.options ?? []))
    assert.ok(offered.length >= 20)
    for (const [tag, { texts }] of Object.entries(LANGUAGES)) {
      for (const option of offered) assert.ok(Object.hasOwn(texts, `option_${option}`), `${tag}: ${option}`)
    }
  })

  it('writes the timeline in the chosen language', () => {
    setLanguage('de')
    assert.equal(
      kind('pregnancyChecks').summary(record({ result: 'pregnant', method: 'ultrasound' })),
      'tragend · Ultraschall',
    )
    assert.equal(kind('inseminations').summary(record({ Boar: 'Duroc', serviceType: 'AI' })), 'Duroc · KB')
    assert.equal(
      kind('movements').summary(record({ fromStage: 'gestation', toStage: 'farrowing' })),
      'Wartestall → Abferkelstall',
    )
    assert.equal(
      kind('returnToEstrus').summary(record({ returnType: 'irregular', daysSinceService: 30 })),
      'unregelmäßig · 30 d',
    )
    setLanguage('es')
    assert.equal(
      kind('generalEvents').summary(record({ Diagnose: 'Lameness', Description: 'pata trasera' })),
      'Cojera · pata trasera',
    )
    setLanguage('pt')
    assert.equal(optionText('open'), 'vazia')
  })

  it("lists a pregnancy check's method, in words, and keeps a method another program wrote when a record is corrected", () => {
    const method = kind('pregnancyChecks').fields.find((f) => f.name === 'method')!
    assert.equal(method.type, 'select')
    const options = method.options ?? []
    assert.deepEqual(options, ['ultrasound', 'doppler', 'observation'])
    assert.equal(method.initial?.(new Date()), 'ultrasound', "the API's default")
    setLanguage('de')
    assert.deepEqual(options.map(optionText), ['Ultraschall', 'Doppler', 'Beobachtung (kein Umrauschen)'])
    assert.deepEqual(optionsWith(options, 'blood test'), ['ultrasound', 'doppler', 'observation', 'blood test'])
    assert.deepEqual(optionsWith(options, 'doppler'), options)
    assert.deepEqual(optionsWith(options, ''), options)
  })

  it('keeps a value typed in, or unknown, as it is', () => {
    setLanguage('de')
    assert.equal(optionText('Ultraschall'), 'Ultraschall')
    assert.equal(optionText('blood test'), 'blood test')
    assert.equal(optionText(undefined), '')
    assert.equal(optionText(null), '')
    setLanguage('en')
    assert.equal(optionText('gilt-pool'), 'gilt pool')
  })
})
