// Pure rules about users, shared by the API and the CLI.

// The same shape ajv-formats calls "email" (RFC 5321 local part and domain, no quoted strings).
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i

export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL.test(value)
}

/** Uids are path segments: printable, no slashes or spaces. */
export const UID_PATTERN = '^[A-Za-z0-9_.:@-]{1,128}$'

export function isUid(value: string): boolean {
  return new RegExp(UID_PATTERN).test(value)
}
