// Options that name an account (--uid, --email), refused as the API refuses them.
import { UsageError } from './command.ts'
import { isEmail, isUid } from '../modules/users/users.rules.ts'

/** A --uid value, refused unless it is a valid Uid. */
export function checkedUid(uid: string): string {
  if (!isUid(uid)) throw new UsageError('--uid may hold letters, digits and _ . : @ - (1-128 characters)')
  return uid
}

/** An --email value (undefined: not given), refused unless it is a valid address. */
export function checkedEmail<Email extends string | undefined>(email: Email): Email {
  if (email !== undefined && !isEmail(email)) throw new UsageError(`--email is not a valid e-mail address: ${email}`)
  return email
}
