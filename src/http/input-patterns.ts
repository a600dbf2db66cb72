// The JSON Schema patterns of the API's inputs, each with what it asks for in words, so that a value of the wrong
// shape is told the shape (validation-details.ts) rather than a regular expression to decode. A pattern is declared
// once, where its field is, through describedPattern; the shapes several features share are declared here.
const WORDS = new Map<string, string>()

/** `pattern`, remembered with `words` (what a value must be) for the message of a value that does not match it. */
export function describedPattern(pattern: string, words: string): string {
  const known = WORDS.get(pattern)
  if (known !== undefined && known !== words) throw new Error(`The pattern ${pattern} is described twice, differently`)
  WORDS.set(pattern, words)
  return pattern
}

/** What a value of `pattern` must be, in words; undefined for a pattern declared without them. */
export function patternInWords(pattern: string): string | undefined {
  return WORDS.get(pattern)
}

/** A date-time as the query and record inputs take it: seconds, fraction and offset optional (UTC without one). */
export const DATE_TIME_SHAPE = 'YYYY-MM-DDTHH:mm[:ss[.sss]][Z|±HH:mm]'
export const ISO_8601_WORDS = `must be an ISO 8601 date, YYYY-MM-DD, or date-time, ${DATE_TIME_SHAPE}`
export const DATE_PATTERN = describedPattern('^\\d{4}-\\d{2}-\\d{2}$', 'must be a date, YYYY-MM-DD')
/** An event's, a record's or a prediction's ID in a path or query: a feed sequence, as decimal digits. */
export const ID_PATTERN = describedPattern('^[0-9]{1,16}$', 'must be an ID: 1-16 decimal digits')
