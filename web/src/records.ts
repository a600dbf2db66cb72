// The eight farm-record collections as the app shows and enters them: where each lives in the API, the date
// that places it on an animal's timeline, a one-line summary, and the fields of its quick entry form.
import { localDate, localTime } from './farm.rules.ts'
import { textOr, type TextKey } from './i18n.ts'

export type FieldType = 'text' | 'number' | 'date' | 'time' | 'select' | 'checkbox'

export interface FormField {
  name: string
  type: FieldType
  required?: boolean
  options?: readonly string[]
  /** The value a new record starts with. */
  initial?: (now: Date) => string | number | boolean
}

export interface RecordKind {
  key:
    | 'inseminations'
    | 'pregnancyChecks'
    | 'births'
    | 'weanings'
    | 'treatments'
    | 'generalEvents'
    | 'movements'
    | 'returnToEstrus'
  label: TextKey
  /** The collection's path under the user (treatments) or under the animal (the others). */
  segment: string
  userLevel?: boolean
  /** The record's own date (YYYY-MM-DD), else its creation time. */
  dateOf: (record: FarmRecord) => string | number | undefined
  summary: (record: FarmRecord) => string
  fields: FormField[]
  /** Fields every create sends that the form does not show. */
  fixed?: (mac: string, now: Date) => Record<string, unknown>
  /** Quick entry offers it (return to estrus is recorded by the office, not in the barn). */
  quickEntry: boolean
}

export type FarmRecord = Record<string, unknown> & { ID: string; t: number; Archived?: boolean }

const today = (now: Date) => localDate(now)
const nowTime = (now: Date) => localTime(now)
/** A scalar as text; anything else (null, an object) as nothing. */
export function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : ''
}

/**
 * A value the app offers in a list (a check's result, a stage, AI or natural), as the user's language writes it;
 * anything else (a value typed in, one of another program) as it is.
 */
export function optionText(value: unknown): string {
  const plain = text(value)
  return plain && textOr(`option_${plain}`, plain)
}

/** A list's options with the value a record holds, when it is none of them (typed in another program): kept, not lost. */
export function optionsWith(options: readonly string[], value: string): readonly string[] {
  return value === '' || options.includes(value) ? options : [...options, value]
}

export const RECORD_KINDS: RecordKind[] = [
  {
    key: 'inseminations',
    label: 'kind_inseminations',
    segment: 'inseminations',
    dateOf: (r) => text(r.StartDate),
    summary: (r) => [text(r.Boar), text(r.GeneticLine), optionText(r.serviceType)].filter(Boolean).join(' · '),
    fields: [
      { name: 'StartDate', type: 'date', required: true, initial: today },
      { name: 'StartTime', type: 'time', initial: nowTime },
      { name: 'Boar', type: 'text', required: true },
      { name: 'GeneticLine', type: 'text' },
      { name: 'serviceType', type: 'select', options: ['AI', 'natural'], initial: () => 'AI' },
      { name: 'Tubes', type: 'number', initial: () => 1 },
      { name: 'Technician', type: 'text' },
    ],
    fixed: () => ({ Archived: false, Occupied: true }),
    quickEntry: true,
  },
  {
    key: 'pregnancyChecks',
    label: 'kind_pregnancyChecks',
    segment: 'pregnancy-checks',
    dateOf: (r) => text(r.checkDate),
    summary: (r) => [optionText(r.result), optionText(r.method)].filter(Boolean).join(' · '),
    fields: [
      { name: 'checkDate', type: 'date', required: true, initial: today },
      { name: 'result', type: 'select', required: true, options: ['pregnant', 'open', 'recheck'] },
      {
        name: 'method',
        type: 'select',
        options: ['ultrasound', 'doppler', 'observation'],
        initial: () => 'ultrasound',
      },
      { name: 'technician', type: 'text' },
      { name: 'notes', type: 'text' },
    ],
    quickEntry: true,
  },
  {
    key: 'births',
    label: 'kind_births',
    segment: 'births',
    dateOf: (r) => text(r.StartDate),
    summary: (r) => `${text(r.Living)} + ${text(r.Dead)}${r.Mummified ? ` + ${text(r.Mummified)}` : ''}`,
    fields: [
      { name: 'StartDate', type: 'date', required: true, initial: today },
      { name: 'StartTime', type: 'time', initial: nowTime },
      { name: 'Living', type: 'number', required: true },
      { name: 'Dead', type: 'number', required: true, initial: () => 0 },
      { name: 'Mummified', type: 'number' },
      { name: 'Assisted', type: 'checkbox', initial: () => false },
      { name: 'Comment', type: 'text' },
    ],
    fixed: () => ({ Archived: false }),
    quickEntry: true,
  },
  {
    key: 'weanings',
    label: 'kind_weanings',
    segment: 'weanings',
    dateOf: (r) => text(r.weaningDate),
    summary: (r) => `${text(r.countWeaned)}${r.weaningWeight ? ` · ${text(r.weaningWeight)} kg` : ''}`,
    fields: [
      { name: 'weaningDate', type: 'date', required: true, initial: today },
      { name: 'countWeaned', type: 'number', required: true },
      { name: 'weaningAge', type: 'number' },
      { name: 'weaningWeight', type: 'number' },
    ],
    quickEntry: true,
  },
  {
    key: 'treatments',
    label: 'kind_treatments',
    segment: 'treatments',
    userLevel: true,
    dateOf: (r) => text(r.StartDate),
    summary: (r) => [text(r.Medicine), text(r.Diagnose)].filter(Boolean).join(' · '),
    fields: [
      { name: 'StartDate', type: 'date', required: true, initial: today },
      { name: 'Medicine', type: 'text', required: true },
      { name: 'Diagnose', type: 'text', required: true },
      { name: 'Dosis', type: 'number' },
      { name: 'TreatmentAmount', type: 'number', required: true, initial: () => 1 },
      { name: 'TreatmentInterval', type: 'number', required: true, initial: () => 24 },
      { name: 'CustomName', type: 'text', required: true },
      { name: 'Comment', type: 'text', required: true },
    ],
    fixed: (mac, now) => ({
      Mac: mac,
      TreatmentCount: 0,
      StartDateSeconds: Math.floor(now.getTime() / 1000),
      Archived: false,
      PhoneHistory: [],
    }),
    quickEntry: true,
  },
  {
    key: 'generalEvents',
    label: 'kind_generalEvents',
    segment: 'general-events',
    dateOf: (r) => r.t,
    summary: (r) => [optionText(r.Diagnose), text(r.Description)].filter(Boolean).join(' · '),
    fields: [
      {
        name: 'Diagnose',
        type: 'select',
        required: true,
        options: ['Sickness', 'Death', 'Lameness', 'Other', 'Note', 'Recovered'],
      },
      { name: 'Description', type: 'text', required: true },
      { name: 'Comment', type: 'text' },
    ],
    quickEntry: true,
  },
  {
    key: 'movements',
    label: 'kind_movements',
    segment: 'movements',
    dateOf: (r) => text(r.movementDate),
    summary: (r) =>
      `${optionText(r.fromStage)} → ${optionText(r.toStage)}${r.toLocation ? ` (${text(r.toLocation)})` : ''}`,
    fields: [
      { name: 'movementDate', type: 'date', required: true, initial: today },
      { name: 'fromStage', type: 'select', required: true, options: STAGES() },
      { name: 'toStage', type: 'select', required: true, options: STAGES() },
      { name: 'fromLocation', type: 'text' },
      { name: 'toLocation', type: 'text' },
    ],
    quickEntry: true,
  },
  {
    key: 'returnToEstrus',
    label: 'kind_returnToEstrus',
    segment: 'return-to-estrus',
    dateOf: (r) => text(r.returnDate),
    summary: (r) => `${optionText(r.returnType)} · ${text(r.daysSinceService)} d`,
    fields: [
      { name: 'returnDate', type: 'date', required: true, initial: today },
      { name: 'returnType', type: 'select', required: true, options: ['regular', 'irregular'] },
      { name: 'daysSinceService', type: 'number', required: true },
      { name: 'reasonCode', type: 'text' },
    ],
    quickEntry: false,
  },
]

function STAGES(): readonly string[] {
  return ['gilt-pool', 'bred', 'gestation', 'farrowing', 'lactation', 'weaned', 'cull']
}

/** The path of a kind's collection for one animal (treatments: the user's, searched by MAC). */
export function collectionPath(kind: RecordKind, mac: string): string {
  return kind.userLevel ? `/${kind.segment}` : `/animals/${encodeURIComponent(mac)}/${kind.segment}`
}

/** The form's values as the API wants them: numbers as numbers, empty optional fields left out. */
export function bodyOf(kind: RecordKind, values: Record<string, string | boolean>, mac: string, now: Date) {
  const body: Record<string, unknown> = { ...(kind.fixed?.(mac, now) ?? {}) }
  for (const field of kind.fields) {
    const value = values[field.name]
    if (field.type === 'checkbox') {
      body[field.name] = value === true
      continue
    }
    if (value === undefined || value === '') continue
    body[field.name] =
      field.type === 'number' && typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  }
  if (kind.key === 'treatments' && typeof body.StartDate === 'string') {
    const seconds = Date.parse(`${body.StartDate}T00:00:00Z`) / 1000
    if (Number.isFinite(seconds)) body.StartDateSeconds = seconds
  }
  return body
}

/** A sortable time for the timeline: the record's date, else its creation time. */
export function timelineTime(kind: RecordKind, record: FarmRecord): number {
  const date = kind.dateOf(record)
  if (typeof date === 'number') return date
  const parsed = date ? Date.parse(date.length === 10 ? `${date}T12:00:00` : date) : NaN
  return Number.isFinite(parsed) ? parsed : record.t
}

/** The detail's field when it names one of the form's (`Boar`, `body.Boar`, `/Boar`), else undefined. */
export function fieldOfDetail(detailField: string, names: string[]): string | undefined {
  const bare = detailField.replace(/^(body[.:/]?|\/)/, '')
  return names.find((name) => bare === name || bare.startsWith(`${name}.`) || bare.startsWith(`${name}[`))
}
