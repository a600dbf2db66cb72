// The startDate/endDate pair of a records query (an animal's records in a range, the births statistics):
// its schema and its check, so that both answer a bad date alike.
import Type from 'typebox'
import { validationFailed, type FieldProblem } from '../../http/errors.ts'
import { ISO_8601_PATTERN, calendarDay } from './records.rules.ts'

/** A day of the range: ISO 8601, a date or a date and time (compared by UTC calendar day). */
export const IsoDate = (description: string, example: string) =>
  Type.String({ pattern: ISO_8601_PATTERN, maxLength: 40, description, examples: [example] })

/**
 * The range's first and last UTC calendar day (undefined where not given). A 400 names each value that is no
 * real date, and a startDate after endDate.
 */
export function dayRange(startDate: string | undefined, endDate: string | undefined) {
  const from = startDate === undefined ? undefined : calendarDay(startDate)
  const to = endDate === undefined ? undefined : calendarDay(endDate)
  const problems: FieldProblem[] = []
  if (startDate !== undefined && !from) problems.push({ field: 'query:startDate', message: 'is not a real date' })
  if (endDate !== undefined && !to) problems.push({ field: 'query:endDate', message: 'is not a real date' })
  if (from && to && from > to) problems.push({ field: 'query:startDate', message: 'must not be after endDate' })
  if (problems.length > 0) throw validationFailed(problems)
  return { from, to }
}
