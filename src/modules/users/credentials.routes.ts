// The account's credentials, its owner's alone: the password, and the confirmation of a new e-mail address.
import type { App } from '../../types.ts'
import Type from 'typebox'
import { userCallerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, MessageEnvelope, ok, okMessage } from '../../http/envelope.ts'
import { badRequest, conflict, forbidden, notFound, validationFailed } from '../../http/errors.ts'
import { confirmEmailChange } from './email-change.ts'
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords.ts'
import { changePassword } from './users.repository.ts'
import { ChangePasswordBody, EmailConfirmationBody, UserIdParams, users } from './users.resource.ts'
import { userViewFor } from './user-view.ts'
import { USERS_TAG } from './users.routes.ts'

export const credentialsModule = defineModule({
  ...USERS_TAG,
  routes: credentialRoutes,
})

async function credentialRoutes(app: App) {
  const db = app.database.db

  app.post(
    '/users/:userId/email-confirmation',
    {
      schema: {
        operationId: 'confirmEmailChange',
        summary: 'Confirm a new e-mail address',
        description:
          "The account's own user token only (integrators and other users get 403). Body `{code}`: the code mailed to the " +
          'new address by an Email change (PUT or PATCH /users/<user_id>, answered 202). The code is valid for 24 hours and ' +
          'once; a later change request replaces it. A wrong code gives 400; no change waiting (none asked, expired or ' +
          'already confirmed) 404; an address that got an account of its own meanwhile 409. Answers with the account, ' +
          'Email changed: the next login uses it.',
        params: UserIdParams,
        body: EmailConfirmationBody,
        response: {
          200: Envelope(users.ref, 'The account with its new e-mail address', 'E-mail address changed'),
          404: Type.Ref('ErrorEnvelope', { description: 'No e-mail change waits for confirmation' }),
          409: Type.Ref('ErrorEnvelope', { description: 'The new address has an account of its own' }),
        },
      },
      config: { changesAccess: true, access: 'self' },
    },
    async (req) => {
      const { user } = userCallerOf(req)
      const outcome = await confirmEmailChange(db, user.uid, req.body.code, app.clock())
      if ('problem' in outcome) {
        if (outcome.problem === 'taken') throw conflict('A user with this Email already exists')
        if (outcome.problem === 'none') throw notFound('E-mail change')
        throw badRequest('Invalid confirmation code')
      }
      return ok(await userViewFor(db, userCallerOf(req), outcome.row), 'E-mail address changed')
    },
  )

  app.post(
    '/users/:userId/password',
    {
      schema: {
        operationId: 'changePassword',
        summary: 'Change your password',
        description:
          "The account's own user token only (integrators and other users get 403). Body `{currentPassword, " +
          'newPassword}`. A wrong currentPassword gives 403 `Current password is incorrect` and counts as a failed login ' +
          'of the account (429 once the login brake is engaged); newPassword must differ from it. ' +
          'Every other session of the account is signed out (its refresh tokens and their access tokens revoked); the ' +
          'session of the presented token stays valid.',
        params: UserIdParams,
        body: ChangePasswordBody,
        response: { 200: MessageEnvelope('Changed', 'Password changed; your other sessions were signed out') },
      },
      config: { changesAccess: true, access: 'self' },
    },
    async (req) => {
      const { user, token } = userCallerOf(req)
      const { currentPassword, newPassword } = req.body
      if (newPassword === currentPassword)
        throw validationFailed([{ field: 'newPassword', message: 'must differ from currentPassword' }])
      // A guess at the current password is a guess at the login: the same brake per account as POST /tokens/login.
      const attempt = await app.loginFailures.attempt(user.email)
      const valid = user.password_hash
        ? await verifyPassword(currentPassword, user.password_hash)
        : await burnPasswordCheck(currentPassword, app.config.passwordScryptLogN)
      if (!valid) {
        if (attempt.engagesBrake)
          req.log.warn({ account: user.uid }, 'login brake engaged: too many wrong current passwords for this account')
        throw forbidden('Current password is incorrect')
      }
      await attempt.succeeded()
      const passwordHash = await hashPassword(newPassword, app.config.passwordScryptLogN)
      if (!(await changePassword(db, user.uid, passwordHash, app.clock(), token.jti))) throw notFound('User')
      return okMessage('Password changed; your other sessions were signed out')
    },
  )
}
