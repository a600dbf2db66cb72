// What an event says to people, in the languages the service speaks to farms: English (the kinds' own
// titles), German, Spanish and Portuguese. The push notifications and the farm app both read it.
import { EVENT_KINDS, type EventType } from './event-kinds.ts'

export const EVENT_LANGUAGES = ['en', 'de', 'es', 'pt'] as const
export type EventLanguage = (typeof EVENT_LANGUAGES)[number]

const TITLES: Record<Exclude<EventLanguage, 'en'>, Record<EventType, string>> = {
  de: {
    'temperature-yellow': 'Temperatur über der Referenz (gelb)',
    'temperature-red': 'Temperatur deutlich über der Referenz (rot)',
    'temperature-normal': 'Temperatur wieder bei der Referenz (grün)',
    'heat-alarm': 'Rausche erwartet',
    'birth-alarm': 'Abferkelung erwartet',
    'lameness-alarm': 'Lahmheit vermutet',
    'litter-unusual-activity': 'Ungewöhnliche Aktivität in der Bucht',
    'litter-offline': 'Abferkelsensor sendet keine Daten',
    'litter-online': 'Abferkelsensor wieder online',
    'tag-silent': 'Ohrmarke sendet nicht',
    'tag-heard': 'Ohrmarke sendet wieder',
    'tag-battery-low': 'Batterie der Ohrmarke schwach',
    'farrowing-due': 'Abferkelung fällig',
    'pregnancy-check-due': 'Trächtigkeitskontrolle fällig',
    'weaned-not-served': 'Abgesetzte Sau nicht belegt',
  },
  es: {
    'temperature-yellow': 'Temperatura por encima de la referencia (amarillo)',
    'temperature-red': 'Temperatura muy por encima de la referencia (rojo)',
    'temperature-normal': 'Temperatura de nuevo en la referencia (verde)',
    'heat-alarm': 'Celo previsto',
    'birth-alarm': 'Parto previsto',
    'lameness-alarm': 'Posible cojera',
    'litter-unusual-activity': 'Actividad inusual en la paridera',
    'litter-offline': 'El sensor de parto no envía datos',
    'litter-online': 'El sensor de parto vuelve a estar en línea',
    'tag-silent': 'El crotal no transmite',
    'tag-heard': 'El crotal vuelve a transmitir',
    'tag-battery-low': 'Batería del crotal baja',
    'farrowing-due': 'Parto previsto para hoy',
    'pregnancy-check-due': 'Diagnóstico de gestación pendiente',
    'weaned-not-served': 'Cerda destetada sin cubrir',
  },
  pt: {
    'temperature-yellow': 'Temperatura acima da referência (amarelo)',
    'temperature-red': 'Temperatura bem acima da referência (vermelho)',
    'temperature-normal': 'Temperatura de volta à referência (verde)',
    'heat-alarm': 'Cio previsto',
    'birth-alarm': 'Parto previsto',
    'lameness-alarm': 'Suspeita de claudicação',
    'litter-unusual-activity': 'Atividade incomum na maternidade',
    'litter-offline': 'Sensor de parto sem dados',
    'litter-online': 'Sensor de parto online novamente',
    'tag-silent': 'Brinco sem sinal',
    'tag-heard': 'Brinco com sinal novamente',
    'tag-battery-low': 'Bateria do brinco fraca',
    'farrowing-due': 'Parto previsto',
    'pregnancy-check-due': 'Diagnóstico de gestação pendente',
    'weaned-not-served': 'Porca desmamada não coberta',
  },
}

/** The language of a BCP 47 tag by its primary subtag (de-AT speaks German); English when not spoken here. */
export function eventLanguageOf(tag: string | null | undefined): EventLanguage {
  const primary = (tag ?? '').toLowerCase().split(/[-_]/)[0] ?? ''
  return (EVENT_LANGUAGES as readonly string[]).includes(primary) ? (primary as EventLanguage) : 'en'
}

/** The event's title in the language of `tag`; an unknown type reads as itself. */
export function eventTitle(type: string, tag: string | null | undefined): string {
  if (!(type in EVENT_KINDS)) return type
  const language = eventLanguageOf(tag)
  return language === 'en' ? EVENT_KINDS[type as EventType].title : TITLES[language][type as EventType]
}
