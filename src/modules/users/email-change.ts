// Moving an account's login to another e-mail address from the API. The new address takes effect once its holder
// confirms it with the code mailed to it, and the request is answered the same whether the address is free or
// already has an account, so no caller learns which addresses do (docs/users.md#changing-the-e-mail-address).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { Mail, Mailer } from '../../mail.ts'
import { findUserByEmail, updateUniqueUser, type UserRow } from './users.repository.ts'

/** How long a confirmation code is valid. */
export const EMAIL_CHANGE_TTL_MS = 24 * 3_600_000

export const EMAIL_CHANGE_PENDING = 'Confirm the new e-mail address: a confirmation code was sent to it'

export const NO_MAIL_SERVER =
  'E-mail changes are confirmed from the new address, and this service has no mail server set up: ask the operator'

/** What PUT and PATCH /users/<user_id> say of Email in the OpenAPI document. */
export const EMAIL_CHANGE_DESCRIPTION =
  'Only the owner can change Email (an integrator gets 403). A new address takes effect once confirmed from it: the ' +
  'answer is then 202 with the account as it is (the other fields changed, Email not yet) and a code is mailed to the ' +
  'new address, to send to POST .../email-confirmation; the answer is the same whether or not the address already has ' +
  'an account (the operator may opt out: EMAIL_CHANGE=immediate changes it at once and answers 409 when it is in use). ' +
  'An account makes at most EMAIL_CHANGES_MAX (10 unless the operator set it) such requests in 24 hours: one more is a 429 ' +
  'that changes nothing.'

const hashOf = (code: string) => createHash('sha256').update(code).digest()

/**
 * The message the new address gets: the code when it is free, a notice when it already has an account. It carries
 * no text of the account's own (its Name): the address is anyone's the caller chose, and the mail is the service's.
 */
export function emailChangeMail(user: Pick<UserRow, 'uid'>, newEmail: string, code: string, taken: boolean): Mail {
  if (taken) {
    return {
      to: newEmail,
      subject: 'Someone asked to move a Livestock API account to this address',
      text:
        `Someone signed in to a Livestock API account asked to make ${newEmail} its login.\n` +
        'This address already has an account of its own, so nothing was changed.\n\n' +
        'If it was you, sign in with this address instead. If it was not, you need do nothing.\n',
    }
  }
  return {
    to: newEmail,
    subject: 'Confirm your new Livestock API e-mail address',
    text:
      `Someone signed in to a Livestock API account asked to make ${newEmail} its login.\n\n` +
      `To confirm, enter this code where you asked for the change (it expires in ${EMAIL_CHANGE_TTL_MS / 3_600_000} hours):\n\n` +
      `    ${code}\n\n` +
      `(or POST /api/v1/users/${user.uid}/email-confirmation with {"code": "${code}"} and the account's token)\n\n` +
      'If it was not you, ignore this message: the login stays as it was.\n',
  }
}

/**
 * Keeps `newEmail` as the account's pending address (replacing an earlier request) and mails its holder: the
 * code when the address is free, a notice when it is taken. Rejects when the mail server refuses the message.
 */
export async function requestEmailChange(
  db: Kysely<DB>,
  mailer: Mailer,
  user: UserRow,
  newEmail: string,
  now: number,
): Promise<void> {
  const code = randomBytes(16).toString('base64url')
  const pending = {
    new_email: newEmail,
    code_hash: hashOf(code).toString('hex'),
    expires_at: now + EMAIL_CHANGE_TTL_MS,
    created_at: now,
  }
  await db
    .insertInto('email_changes')
    .values({ uid: user.uid, ...pending })
    .onConflict((oc) => oc.column('uid').doUpdateSet(pending))
    .execute()
  const taken = (await findUserByEmail(db, newEmail)) !== undefined
  await mailer.send(emailChangeMail(user, newEmail, code, taken))
}

export type ConfirmOutcome = { row: UserRow } | { problem: 'none' | 'invalid' | 'taken' }

/** Moves the login to the pending address when `code` is its current code; a matching code is used up whatever follows. */
export async function confirmEmailChange(
  db: Kysely<DB>,
  uid: string,
  code: string,
  now: number,
): Promise<ConfirmOutcome> {
  const checked = await db
    .transaction()
    .execute(async (trx): Promise<{ problem: 'none' | 'invalid' } | { newEmail: string }> => {
      const pending = await trx
        .selectFrom('email_changes')
        .selectAll()
        .where('uid', '=', uid)
        .forUpdate()
        .executeTakeFirst()
      if (!pending || Number(pending.expires_at) <= now) return { problem: 'none' }
      if (!timingSafeEqual(Buffer.from(pending.code_hash, 'hex'), hashOf(code))) return { problem: 'invalid' }
      await trx.deleteFrom('email_changes').where('uid', '=', uid).execute()
      return { newEmail: pending.new_email }
    })
  if ('problem' in checked) return checked
  const result = await updateUniqueUser(db, uid, { email: checked.newEmail })
  if (!result) return { problem: 'none' }
  return result.duplicate ? { problem: 'taken' } : { row: result.row }
}
