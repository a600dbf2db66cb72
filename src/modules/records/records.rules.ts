// Pure rules of the record endpoints.
import { describedPattern, ISO_8601_WORDS } from '../../http/input-patterns.ts'

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/

/** ISO 8601 dates as the range and statistics parameters accept them: a date, or a date and time. */
export const ISO_8601_PATTERN = describedPattern(ISO_8601.source, ISO_8601_WORDS)

/**
 * The UTC calendar day of an ISO 8601 date or date-time, YYYY-MM-DD; undefined for a day that does not
 * exist (2026-02-30) or a time out of range. A date-time without an offset is read as UTC.
 */
export function calendarDay(value: string): string | undefined {
  const match = ISO_8601.exec(value)
  if (!match) return undefined
  const [, y, m, d, timePart, hh = '00', mm = '00', , ss = '00', fraction = '', offset = 'Z'] = match
  const date = `${y}-${m}-${d}`
  const day = new Date(`${date}T00:00:00Z`)
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== date) return undefined
  if (!timePart) return date
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return undefined
  const moment = new Date(`${date}T${hh}:${mm}:${ss}${fraction}${offset}`)
  return Number.isNaN(moment.getTime()) ? undefined : moment.toISOString().slice(0, 10)
}

/** A record id in a path: digits only (the creation time in ms); anything else names no record. */
export function recordIdOf(value: string): number | undefined {
  return /^[0-9]{1,16}$/.test(value) ? Number(value) : undefined
}
