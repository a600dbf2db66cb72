// Pure rules about users, shared by the API and the CLI.
import { describedPattern } from '../../http/input-patterns.ts'

// The same shape ajv-formats calls "email" (RFC 5321 local part and domain, no quoted strings).
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i

export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL.test(value)
}

/** Uids are path segments: printable, no slashes or spaces. */
export const UID_PATTERN = describedPattern(
  '^[A-Za-z0-9_.:@-]{1,128}$',
  'must be 1-128 characters of A-Z, a-z, 0-9 and _ . : @ -',
)

export function isUid(value: string): boolean {
  return new RegExp(UID_PATTERN).test(value)
}

/** E.164: a plus sign, then 7 to 15 digits with no separators (what SMS and push providers expect). */
export const PHONE_PATTERN = describedPattern(
  '^\\+[1-9][0-9]{6,14}$',
  'must be a phone number in international form, + and 7-15 digits',
)

/** A BCP 47 language tag such as en, de-AT or zh-Hant-TW. */
export const LANGUAGE_PATTERN = describedPattern(
  '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
  'must be a language tag such as de or de-AT',
)

/** `<Vendor>Integration` flags: any boolean field named like AcmeIntegration. */
export const INTEGRATION_FLAG = '^[A-Z][A-Za-z0-9]*Integration$'
const INTEGRATION_FLAG_RE = new RegExp(INTEGRATION_FLAG)

/** Most `<Vendor>Integration` flags one account holds. */
export const MAX_INTEGRATION_FLAGS = 50

/** Uids that are static path segments under /users and so can never be read as an id. */
export const RESERVED_UIDS: ReadonlySet<string> = new Set(['search'])

/** The `<Vendor>Integration` fields of a (validated) body; null marks a flag to remove. */
export function integrationFlagsOf(body: Record<string, unknown>): Record<string, boolean | null> {
  const flags: Record<string, boolean | null> = {}
  for (const [key, value] of Object.entries(body)) {
    if (INTEGRATION_FLAG_RE.test(key) && (typeof value === 'boolean' || value === null)) flags[key] = value
  }
  return flags
}

/** Splits a partial update of the flags into the ones to set and the ones to remove. */
export function splitFlagChanges(flags: Record<string, boolean | null>): {
  set: Record<string, boolean>
  remove: string[]
} {
  const set: Record<string, boolean> = {}
  const remove: string[] = []
  for (const [key, value] of Object.entries(flags)) {
    if (value === null) remove.push(key)
    else set[key] = value
  }
  return { set, remove }
}

/** A LIKE pattern matching `text` anywhere, with its own % _ and \ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** How many flags an account holds after `changes` (null removes) are applied to `current`. */
export function flagCountAfter(current: Record<string, unknown>, changes: Record<string, boolean | null>): number {
  const keys = new Set(Object.keys(current))
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) keys.delete(key)
    else keys.add(key)
  }
  return keys.size
}
