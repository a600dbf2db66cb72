// Why an event was raised, in one line for people, in the languages of event-texts.ts: read from the event's
// evidence as each kind's producer writes it (reading-events.ts, prediction-events.ts, due-events.ts and
// src/jobs/watch-events.ts). The farm app shows it under the event's title.
import type { EventType } from './event-kinds.ts'
import { eventLanguageOf, type EventLanguage } from './event-texts.ts'

export interface SummaryFacts {
  EventType: string
  evidence?: Record<string, unknown> | undefined
}

/** A fact the line needs is not in the evidence (an older event, another producer): no line, the caller falls back. */
class MissingFact extends Error {}

/** The evidence's facts, formatted for one language; each throws MissingFact when its fact is absent. */
interface Facts {
  /** A number to `digits` decimals at most, grouped and with the language's decimal mark. */
  number(key: string, digits: number): string
  /** A share (0-1) as a percentage. */
  percent(key: string): string
  /** A percentage (0-100) as written. */
  percentOf(key: string): string
  /** A duration given in minutes, in words: minutes under 90, else hours under 48, else days. */
  minutes(key: string): string
  /** An instant, in ms (or Unix seconds, below 1e11: a litter device's times), as the caller shows instants. */
  time(key: string): string
  /** A calendar day, YYYY-MM-DD. */
  day(key: string): string
  /** Whether the evidence holds `key` as a number above 0. */
  positive(key: string): boolean
  /** `key` divided by `by`, to one decimal. */
  ratio(key: string, by: string): string
}

type Phrases = Record<EventType, (x: Facts) => string>

const EN: Phrases = {
  'temperature-yellow': (x) =>
    `${x.number('currentTemperature', 2)} °C: ${x.number('delta', 2)} °C above the reference of ${x.number('referenceTemperature', 2)} °C`,
  'temperature-red': (x) => EN['temperature-yellow'](x),
  'temperature-normal': (x) =>
    `${x.number('currentTemperature', 2)} °C: back within ${x.number('thresholds.yellow', 2)} °C of the reference of ${x.number('referenceTemperature', 2)} °C`,
  'heat-alarm': (x) => `Probability ${x.percent('probability')}, alarm from ${x.percent('threshold')}`,
  'birth-alarm': (x) => EN['heat-alarm'](x),
  'lameness-alarm': (x) => EN['heat-alarm'](x),
  'litter-unusual-activity': (x) =>
    x.positive('baselineMean')
      ? `Activity ${x.ratio('windowActivity', 'baselineMean')} times the usual between ${x.time('windowStart')} and ${x.time('windowEnd')}`
      : `Activity ${x.number('deviationSigmas', 1)} standard deviations above the usual between ${x.time('windowStart')} and ${x.time('windowEnd')}`,
  'litter-offline': (x) => `No data for ${x.minutes('offlineMinutes')}; last data ${x.time('lastSeen')}`,
  'litter-online': (x) => `Data again after ${x.minutes('offlineMinutes')} without`,
  'tag-silent': (x) => `Not heard for ${x.minutes('silentMinutes')}; last heard ${x.time('lastHeard')}`,
  'tag-heard': (x) => `Heard again after ${x.minutes('silentMinutes')} silent`,
  'tag-battery-low': (x) => `Battery ${x.percentOf('battery')}, below ${x.percentOf('thresholdPercent')}`,
  'farrowing-due': (x) => `Served ${x.day('recordDate')}; farrowing expected ${x.day('expectedFarrowingDate')}`,
  'pregnancy-check-due': (x) => `Served ${x.day('recordDate')}; check due ${x.day('dueDate')}`,
  'weaned-not-served': (x) => `Weaned ${x.day('recordDate')}; not served by ${x.day('dueDate')}`,
}

const DE: Phrases = {
  'temperature-yellow': (x) =>
    `${x.number('currentTemperature', 2)} °C: ${x.number('delta', 2)} °C über der Referenz von ${x.number('referenceTemperature', 2)} °C`,
  'temperature-red': (x) => DE['temperature-yellow'](x),
  'temperature-normal': (x) =>
    `${x.number('currentTemperature', 2)} °C: wieder weniger als ${x.number('thresholds.yellow', 2)} °C über der Referenz von ${x.number('referenceTemperature', 2)} °C`,
  'heat-alarm': (x) => `Wahrscheinlichkeit ${x.percent('probability')}, Alarm ab ${x.percent('threshold')}`,
  'birth-alarm': (x) => DE['heat-alarm'](x),
  'lameness-alarm': (x) => DE['heat-alarm'](x),
  'litter-unusual-activity': (x) =>
    x.positive('baselineMean')
      ? `Aktivität ${x.ratio('windowActivity', 'baselineMean')}-mal so hoch wie üblich zwischen ${x.time('windowStart')} und ${x.time('windowEnd')}`
      : `Aktivität ${x.number('deviationSigmas', 1)} Standardabweichungen über dem Üblichen zwischen ${x.time('windowStart')} und ${x.time('windowEnd')}`,
  'litter-offline': (x) => `${x.minutes('offlineMinutes')} lang keine Daten; zuletzt ${x.time('lastSeen')}`,
  'litter-online': (x) => `Wieder Daten; Ausfall: ${x.minutes('offlineMinutes')}`,
  'tag-silent': (x) => `${x.minutes('silentMinutes')} lang nicht empfangen; zuletzt ${x.time('lastHeard')}`,
  'tag-heard': (x) => `Wieder empfangen; Funkstille: ${x.minutes('silentMinutes')}`,
  'tag-battery-low': (x) => `Batterie ${x.percentOf('battery')}, unter ${x.percentOf('thresholdPercent')}`,
  'farrowing-due': (x) => `Belegt am ${x.day('recordDate')}; Abferkelung erwartet am ${x.day('expectedFarrowingDate')}`,
  'pregnancy-check-due': (x) => `Belegt am ${x.day('recordDate')}; Kontrolle fällig am ${x.day('dueDate')}`,
  'weaned-not-served': (x) => `Abgesetzt am ${x.day('recordDate')}; bis ${x.day('dueDate')} nicht belegt`,
}

const ES: Phrases = {
  'temperature-yellow': (x) =>
    `${x.number('currentTemperature', 2)} °C: ${x.number('delta', 2)} °C por encima de la referencia de ${x.number('referenceTemperature', 2)} °C`,
  'temperature-red': (x) => ES['temperature-yellow'](x),
  'temperature-normal': (x) =>
    `${x.number('currentTemperature', 2)} °C: de nuevo a menos de ${x.number('thresholds.yellow', 2)} °C por encima de la referencia de ${x.number('referenceTemperature', 2)} °C`,
  'heat-alarm': (x) => `Probabilidad ${x.percent('probability')}, alarma desde ${x.percent('threshold')}`,
  'birth-alarm': (x) => ES['heat-alarm'](x),
  'lameness-alarm': (x) => ES['heat-alarm'](x),
  'litter-unusual-activity': (x) =>
    x.positive('baselineMean')
      ? `Actividad ${x.ratio('windowActivity', 'baselineMean')} veces la habitual entre ${x.time('windowStart')} y ${x.time('windowEnd')}`
      : `Actividad ${x.number('deviationSigmas', 1)} desviaciones típicas por encima de la habitual entre ${x.time('windowStart')} y ${x.time('windowEnd')}`,
  'litter-offline': (x) => `Sin datos desde hace ${x.minutes('offlineMinutes')}; último dato ${x.time('lastSeen')}`,
  'litter-online': (x) => `Datos de nuevo tras ${x.minutes('offlineMinutes')} sin ellos`,
  'tag-silent': (x) => `Sin señal desde hace ${x.minutes('silentMinutes')}; última señal ${x.time('lastHeard')}`,
  'tag-heard': (x) => `Señal de nuevo tras ${x.minutes('silentMinutes')} sin ella`,
  'tag-battery-low': (x) => `Batería ${x.percentOf('battery')}, por debajo de ${x.percentOf('thresholdPercent')}`,
  'farrowing-due': (x) => `Cubierta el ${x.day('recordDate')}; parto previsto el ${x.day('expectedFarrowingDate')}`,
  'pregnancy-check-due': (x) => `Cubierta el ${x.day('recordDate')}; diagnóstico previsto el ${x.day('dueDate')}`,
  'weaned-not-served': (x) => `Destetada el ${x.day('recordDate')}; sin cubrir a fecha de ${x.day('dueDate')}`,
}

const PT: Phrases = {
  'temperature-yellow': (x) =>
    `${x.number('currentTemperature', 2)} °C: ${x.number('delta', 2)} °C acima da referência de ${x.number('referenceTemperature', 2)} °C`,
  'temperature-red': (x) => PT['temperature-yellow'](x),
  'temperature-normal': (x) =>
    `${x.number('currentTemperature', 2)} °C: de novo menos de ${x.number('thresholds.yellow', 2)} °C acima da referência de ${x.number('referenceTemperature', 2)} °C`,
  'heat-alarm': (x) => `Probabilidade ${x.percent('probability')}, alarme a partir de ${x.percent('threshold')}`,
  'birth-alarm': (x) => PT['heat-alarm'](x),
  'lameness-alarm': (x) => PT['heat-alarm'](x),
  'litter-unusual-activity': (x) =>
    x.positive('baselineMean')
      ? `Atividade ${x.ratio('windowActivity', 'baselineMean')} vezes a habitual entre ${x.time('windowStart')} e ${x.time('windowEnd')}`
      : `Atividade ${x.number('deviationSigmas', 1)} desvios-padrão acima da habitual entre ${x.time('windowStart')} e ${x.time('windowEnd')}`,
  'litter-offline': (x) => `Sem dados há ${x.minutes('offlineMinutes')}; último dado ${x.time('lastSeen')}`,
  'litter-online': (x) => `Dados de novo após ${x.minutes('offlineMinutes')} sem eles`,
  'tag-silent': (x) => `Sem sinal há ${x.minutes('silentMinutes')}; último sinal ${x.time('lastHeard')}`,
  'tag-heard': (x) => `Sinal de novo após ${x.minutes('silentMinutes')} sem ele`,
  'tag-battery-low': (x) => `Bateria ${x.percentOf('battery')}, abaixo de ${x.percentOf('thresholdPercent')}`,
  'farrowing-due': (x) => `Coberta em ${x.day('recordDate')}; parto previsto em ${x.day('expectedFarrowingDate')}`,
  'pregnancy-check-due': (x) => `Coberta em ${x.day('recordDate')}; diagnóstico previsto em ${x.day('dueDate')}`,
  'weaned-not-served': (x) => `Desmamada em ${x.day('recordDate')}; não coberta até ${x.day('dueDate')}`,
}

export const EVENT_SUMMARIES: Record<EventLanguage, Phrases> = { en: EN, de: DE, es: ES, pt: PT }

/** The evidence's value at `path` ("thresholds.yellow" reads a nested one). */
function valueAt(evidence: Record<string, unknown>, path: string): unknown {
  let value: unknown = evidence
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

function factsOf(
  evidence: Record<string, unknown>,
  language: EventLanguage,
  formatTime: (ms: number) => string,
): Facts {
  const numberAt = (key: string) => {
    const value = valueAt(evidence, key)
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new MissingFact(key)
    return value
  }
  const format = (value: number, options: Intl.NumberFormatOptions) =>
    new Intl.NumberFormat(language, options).format(value)
  const unit = (value: number, unit: 'minute' | 'hour' | 'day') =>
    format(value, { style: 'unit', unit, unitDisplay: 'long', maximumFractionDigits: 0 })
  return {
    number: (key, digits) => format(numberAt(key), { maximumFractionDigits: digits }),
    percent: (key) => format(numberAt(key), { style: 'percent', maximumFractionDigits: 0 }),
    percentOf: (key) => format(numberAt(key) / 100, { style: 'percent', maximumFractionDigits: 0 }),
    minutes: (key) => {
      const minutes = numberAt(key)
      if (minutes < 90) return unit(minutes, 'minute')
      if (minutes < 48 * 60) return unit(Math.round(minutes / 60), 'hour')
      return unit(Math.round(minutes / 1440), 'day')
    },
    time: (key) => {
      const value = numberAt(key)
      return formatTime(value < 1e11 ? value * 1000 : value)
    },
    day: (key) => {
      const value = valueAt(evidence, key)
      const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(value) : NaN
      if (!Number.isFinite(ms)) throw new MissingFact(key)
      return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(ms)
    },
    positive: (key) => {
      const value = valueAt(evidence, key)
      return typeof value === 'number' && value > 0
    },
    ratio: (key, by) => format(numberAt(key) / numberAt(by), { maximumFractionDigits: 1 }),
  }
}

/**
 * Why the event was raised, in one line in the language of `tag` (instants shown by `formatTime`); undefined for
 * a kind not known here or evidence without the facts its line needs.
 */
export function eventSummary(
  event: SummaryFacts,
  tag: string | null | undefined,
  formatTime: (ms: number) => string,
): string | undefined {
  const language = eventLanguageOf(tag)
  const phrase = (EVENT_SUMMARIES[language] as Record<string, ((x: Facts) => string) | undefined>)[event.EventType]
  if (!phrase || !event.evidence) return undefined
  try {
    return phrase(factsOf(event.evidence, language, formatTime))
  } catch (err) {
    if (err instanceof MissingFact) return undefined
    throw err
  }
}
