// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// A KPI's value and published benchmark in the app's language: the API's benchmarks (its numbers in the KPI's unit,
// its words in English) written by the app in English and German, every KPI; a KPI the app has no words for in the
// API's own text.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { amountText, benchmarkText, KPI_UNITS, rangeText } from '../../web/src/kpi-benchmark.rules.ts'
import { LANGUAGES } from '../../web/src/i18n.ts'
import { KPI_BENCHMARKS } from '../../src/modules/herd/kpi.rules.ts'

/** The benchmark words of a language's table, as the performance screen passes them. */
function wordsOf(tag: string, name: string) {
  const texts = LANGUAGES[tag]!.texts as Record<string, string>
  return { below: texts.benchmarkBelow!, above: texts.benchmarkAbove!, kpi: texts[`kpiBenchmark_${name}`] }
}

/** Intl's no-break space before a German or Spanish "%". */
const NBSP = '\u00a0'

const inLanguage = (tag: string) =>
  Object.fromEntries(
    Object.entries(KPI_BENCHMARKS).map(([name, benchmark]) => [
      name,
      benchmarkText(name, benchmark, tag, wordsOf(tag, name)),
    ]),
  )

describe('KPI benchmarks in the app’s language', () => {
  it('writes each benchmark in English, its numbers as Intl writes them', () => {
    assert.deepEqual(inLanguage('en'), {
      farrowingRate: '83% – 88%',
      littersPerMatedFemaleYear: '2.3–2.5',
      pigsWeanedPerMatedFemaleYear: '26–30 (the best Danish herds above 33)',
      nonProductiveDays: '31–36 days',
      weanToServiceInterval: '5.6–7 days',
      returnRate: 'below 12%, most of them regular',
      bornAlivePerLitter: '13–15',
      stillbornPerLitter: 'about 1 (below 7% of the total born)',
      preWeaningMortality: '10% – 15%',
    })
  })

  it('writes each benchmark in German, decimal commas and German words', () => {
    assert.deepEqual(inLanguage('de'), {
      farrowingRate: `83–88${NBSP}%`,
      littersPerMatedFemaleYear: '2,3–2,5',
      pigsWeanedPerMatedFemaleYear: '26–30 (die besten dänischen Betriebe über 33)',
      nonProductiveDays: '31–36 Tage',
      weanToServiceInterval: '5,6–7 Tage',
      returnRate: `unter 12${NBSP}%, die meisten davon regelmäßig`,
      bornAlivePerLitter: '13–15',
      stillbornPerLitter: `etwa 1 (unter 7${NBSP}% aller geborenen Ferkel)`,
      preWeaningMortality: `10–15${NBSP}%`,
    })
  })

  it('has words for every benchmark the API gives, in Spanish and Portuguese too', () => {
    for (const tag of ['es', 'pt']) {
      for (const [name, shown] of Object.entries(inLanguage(tag))) {
        assert.doesNotMatch(shown, /[{}]|below|about|days|\bregular\b/, `${tag} ${name}: ${shown}`)
      }
    }
    assert.equal(inLanguage('es').weanToServiceInterval, '5,6-7 días')
    assert.equal(inLanguage('es').stillbornPerLitter, `alrededor de 1 (menos del 7${NBSP}% del total de nacidos)`)
    assert.equal(inLanguage('pt').returnRate, 'abaixo de 12%, a maioria regulares')
  })

  it('says a bound alone in words: below its high, above its low', () => {
    const words = wordsOf('en', 'farrowingRate')
    assert.equal(benchmarkText('farrowingRate', { text: 'below 12 %', low: null, high: 12 }, 'en', words), 'below 12%')
    assert.equal(
      benchmarkText('farrowingRate', { text: 'below 12 %', low: null, high: 12 }, 'de', wordsOf('de', 'x')),
      `unter 12${NBSP}%`,
    )
    assert.equal(benchmarkText('nonProductiveDays', { text: '', low: 31, high: null }, 'en', words), 'above 31 days')
  })

  it("keeps the API's text for a KPI the app has no words for, or a benchmark its words cannot say", () => {
    const novel = { text: '2-3 visits', low: 2, high: 3 }
    assert.equal(benchmarkText('vetVisitsPerMonth', novel, 'de', wordsOf('de', 'vetVisitsPerMonth')), '2-3 visits')
    const bare = { text: 'as low as you can', low: null, high: null }
    assert.equal(benchmarkText('farrowingRate', bare, 'de', wordsOf('de', 'farrowingRate')), 'as low as you can')
    assert.equal(benchmarkText('farrowingRate', undefined, 'de', wordsOf('de', 'farrowingRate')), '')
    assert.equal(benchmarkText('females', { low: 1, high: 2 }, 'en', wordsOf('en', 'females')), '1–2')
  })

  it('writes a value in its unit, one day singular, a range of one number as that number', () => {
    assert.equal(amountText(1, 'days', 'en'), '1 day')
    assert.equal(amountText(10.234, 'days', 'de'), '10,23 Tage')
    assert.equal(amountText(85.2, '%', 'en'), '85.2%')
    assert.equal(amountText(1234.5, 'count', 'de'), '1.234,5')
    assert.equal(rangeText(7, 7, 'days', 'en'), '7 days')
    assert.equal(KPI_UNITS.females, 'count')
  })
})
