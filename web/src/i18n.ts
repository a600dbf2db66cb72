// The app's texts in the farm user's Language (a BCP 47 tag: de-AT reads German). English is the fallback, and
// the languages are the ones the service's push notifications speak (docs/events.md).
import { en, type Dictionary, type TextKey } from './texts/en.ts'
import { de } from './texts/de.ts'
import { es } from './texts/es.ts'
import { pt } from './texts/pt.ts'

export type { TextKey }

export const LANGUAGES: Record<string, { name: string; texts: Dictionary }> = {
  en: { name: 'English', texts: en },
  de: { name: 'Deutsch', texts: de },
  es: { name: 'Español', texts: es },
  pt: { name: 'Português', texts: pt },
}

/** The dictionary of a BCP 47 tag by its primary language: de-AT reads German; unknown tags read English. */
export function languageOf(tag: string | undefined | null): string {
  const primary = (tag ?? '').toLowerCase().split(/[-_]/)[0] ?? ''
  return primary in LANGUAGES ? primary : 'en'
}

let current: Dictionary = en
let currentTag = 'en'

export function setLanguage(tag: string | undefined | null) {
  currentTag = languageOf(tag)
  current = LANGUAGES[currentTag]!.texts
}

export function language(): string {
  return currentTag
}

export function t(key: TextKey): string {
  return current[key]
}

/** The text of a key made from an API name (`kpi_<name>`), or `fallback` for a name the app has no words for. */
export function textOr(key: string, fallback: string): string {
  return Object.hasOwn(current, key) ? current[key as TextKey] : fallback
}
