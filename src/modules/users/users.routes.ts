// User accounts: the spec's user operations at the paths of docs/decisions.md, plus the password change.
import type { App } from '../../types.ts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import Type from 'typebox'
import { callerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { created } from '../../http/created.ts'
import { Envelope, MessageEnvelope, PageEnvelope, ok, okMessage, pageOf } from '../../http/envelope.ts'
import { conflict, forbidden, notFound, orNotFound, serviceUnavailable, validationFailed } from '../../http/errors.ts'
import { createMailer } from '../../mail.ts'
import { EMAIL_CHANGE_DESCRIPTION, EMAIL_CHANGE_PENDING, NO_MAIL_SERVER, requestEmailChange } from './email-change.ts'
import { parseFilters } from '../../http/list-params.ts'
import { hashPassword } from './passwords.ts'
import {
  MAX_PUSH_TOKENS,
  addPushToken,
  deleteUserAndData,
  findUserByUid,
  insertUniqueUser,
  listPushTokens,
  listUsers,
  mergedIntegrationFlags,
  searchUsers,
  updateUniqueUser,
  updateUserStatus,
  type NewUser,
  type UniqueResult,
  type UserRow,
} from './users.repository.ts'
import { userViewFor } from './user-view.ts'
import {
  MAX_INTEGRATION_FLAGS,
  RESERVED_UIDS,
  flagCountAfter,
  integrationFlagsOf,
  splitFlagChanges,
} from './users.rules.ts'
import {
  CreateUserBody,
  PatchUserBody,
  PushTokenBody,
  ReplaceUserBody,
  UserIdParams,
  UserListQuery,
  UserPhone,
  UserProfile,
  UserSearchQuery,
  UserStatusBody,
  toApiPushToken,
  toApiUser,
  toProfile,
  users,
} from './users.resource.ts'

const UserRef = users.ref
const PushTokenRef = Type.Ref('UserPhone')

const OWN = "Access: the account owner's user token, or an integrator linked to the account"

const duplicateMessage = (field: 'Uid' | 'Email') => `A user with this ${field} already exists`

const PendingEmailChange = Envelope(
  UserRef,
  'The account as stored now; the new e-mail address waits for confirmation from it',
  EMAIL_CHANGE_PENDING,
)

/** The answers of PUT and PATCH /users/:userId. */
const ProfileChanged = {
  200: Envelope(UserRef, 'The user as stored now', 'User updated'),
  202: PendingEmailChange,
  409: Type.Ref('ErrorEnvelope', { description: 'Email already in use (EMAIL_CHANGE=immediate only)' }),
}

function checkFlagCount(count: number) {
  if (count > MAX_INTEGRATION_FLAGS) {
    throw validationFailed([
      { field: '(root)', message: `an account holds at most ${MAX_INTEGRATION_FLAGS} <Vendor>Integration flags` },
    ])
  }
}

/** The OpenAPI tag of the users module, which the credentials module (credentials.routes.ts) shares. */
export const USERS_TAG = { tag: 'users', description: 'User (farm) accounts, their push tokens, status and password' }

export const usersModule = defineModule({
  ...USERS_TAG,
  schemas: [UserPhone, users.item],
  routes: userRoutes,
})

async function userRoutes(app: App) {
  const db = app.database.db
  const { limits } = app.config
  const mailer = createMailer(app.config.mail)
  app.addHook('onClose', async () => mailer?.close())

  const requireUser = async (uid: string) => orNotFound(await findUserByUid(db, uid), 'User')

  const userView = (req: FastifyRequest, row: UserRow) => userViewFor(db, callerOf(req), row)

  /**
   * The e-mail is the login: a linked integrator may write the profile but not move the login elsewhere, and the
   * owner moves it only to an address that confirms. Returns the address to confirm, or undefined when the update
   * applies the Email with the other fields (unchanged, only its case changed, or EMAIL_CHANGE=immediate).
   */
  async function emailToConfirm(req: FastifyRequest, current: UserRow, email: unknown): Promise<string | undefined> {
    if (typeof email !== 'string' || email === current.email) return undefined
    if (callerOf(req).kind === 'integrator') throw forbidden('Only the account owner can change the e-mail address')
    if (email.toLowerCase() === current.email.toLowerCase() || app.config.mail.emailChange === 'immediate')
      return undefined
    if (!mailer) throw forbidden(NO_MAIL_SERVER)
    // Each request mails an address the caller names: a bound per account, before anything of it is changed.
    await app.emailChanges.take(current.uid)
    return email
  }

  /** Mails the confirmation of `newEmail` and answers 202 with the account as it is now. */
  async function pendingEmailAnswer(req: FastifyRequest, reply: FastifyReply, row: UserRow, newEmail: string) {
    try {
      await requestEmailChange(db, mailer!, row, newEmail, app.clock())
    } catch (err) {
      req.log.warn({ err }, 'the e-mail confirmation could not be sent')
      throw serviceUnavailable('The confirmation e-mail could not be sent; try again later', 60)
    }
    reply.code(202)
    return ok(await userView(req, row), EMAIL_CHANGE_PENDING)
  }

  /** The answer of a profile change (PUT, PATCH): 404, 409, 202 with an e-mail address to confirm, or 200. */
  async function profileChangedAnswer(
    req: FastifyRequest,
    reply: FastifyReply,
    result: UniqueResult | undefined,
    newEmail: string | undefined,
  ) {
    if (!result) throw notFound('User')
    if (result.duplicate) throw conflict(duplicateMessage(result.duplicate))
    if (newEmail !== undefined) return pendingEmailAnswer(req, reply, result.row, newEmail)
    return ok(await userView(req, result.row), 'User updated')
  }

  app.get(
    '/users',
    {
      schema: {
        operationId: 'listUsers',
        summary: 'List all users',
        description:
          'Admin user token only. Common list parameters: `sortBy` one of t (creation time), Uid, Email, Name, ' +
          'Language; `filter[Field]=value` on Uid, Email and Language (both case-insensitive), Name, Flagged, Inactive, BDUser, Admin, ' +
          'RequestDeletion, betaUser. List items carry the account fields only: read one user for its FCMTokens and integrators.',
        querystring: UserListQuery(limits),
        response: { 200: PageEnvelope(UserRef) },
      },
      config: { access: 'admin' },
    },
    async (req) => {
      // List items carry the account fields only (a single user's view adds its push tokens and integrators).
      const found = await listUsers(db, req.query, parseFilters(req.query, users.filterFields))
      return pageOf(found, req.query, (row) => toApiUser(row))
    },
  )

  app.get(
    '/users/search',
    {
      schema: {
        operationId: 'searchUsers',
        summary: 'Search users',
        description:
          'BDUser user token only. All criteria optional and combined with AND: `email` exact and case-insensitive, ' +
          '`name` a case-insensitive substring (% and _ match themselves), `flagged`, `inactive` (true/false), `language` ' +
          'case-insensitive. Paginated like every list (page, limit, sortBy, sortOrder). Items carry the account fields only.',
        querystring: UserSearchQuery(limits),
        response: { 200: PageEnvelope(UserRef) },
      },
      config: { access: 'bdUser' },
    },
    async (req) => {
      const { email, name, flagged, inactive, language } = req.query
      const found = await searchUsers(db, { email, name, flagged, inactive, language }, req.query)
      return pageOf(found, req.query, (row) => toApiUser(row))
    },
  )

  app.post(
    '/users',
    {
      schema: {
        operationId: 'createUser',
        summary: 'Create a user',
        description:
          'BDUser user token only. Uid, Email and Name are required; Email must be a valid address, Phone E.164, ' +
          'Language a BCP 47 tag. `Password` is optional and write-only (without it the account cannot log in until the ' +
          'operator sets one). Admin cannot be set; unknown fields are refused with 400. A Uid or Email (case-insensitive) ' +
          'already in use gives 409. Answers 201 with the user and a Location header.',
        body: CreateUserBody,
        response: {
          201: Envelope(UserRef, 'The created user', 'User created'),
          409: Type.Ref('ErrorEnvelope', { description: 'Uid or Email already in use' }),
        },
      },
      config: { access: 'bdUser', idempotent: true },
    },
    async (req, reply) => {
      const body = req.body
      const uid = String(body.Uid)
      if (RESERVED_UIDS.has(uid))
        throw validationFailed([{ field: 'Uid', message: `"${uid}" is reserved: it is a path segment under /users` }])
      const flags = splitFlagChanges(integrationFlagsOf(body)).set
      checkFlagCount(Object.keys(flags).length)
      const passwordHash =
        typeof body.Password === 'string' ? await hashPassword(body.Password, app.config.passwordScryptLogN) : null
      const result = await insertUniqueUser(db, {
        ...(users.toColumns(body) as Pick<NewUser, 'uid' | 'email' | 'name'>),
        integration_flags: JSON.stringify(flags),
        password_hash: passwordHash,
        password_changed_at: passwordHash ? new Date(app.clock()) : null,
      })
      if (result.duplicate) throw conflict(duplicateMessage(result.duplicate))
      return created(
        reply,
        `/users/${result.row.uid}`,
        ok({ ...toApiUser(result.row, []), FCMTokens: [] }, 'User created'),
      )
    },
  )

  app.get(
    '/users/:userId',
    {
      schema: {
        operationId: 'getUser',
        summary: 'Get one user',
        description: `${OWN}. Returns every User field with FCMTokens and integrators; an integrator sees only itself in integrators.`,
        params: UserIdParams,
        response: { 200: Envelope(UserRef) },
      },
      config: { access: 'own' },
    },
    async (req) => ok(await userView(req, await requireUser(req.params.userId))),
  )

  app.put(
    '/users/:userId',
    {
      schema: {
        operationId: 'replaceUser',
        summary: "Replace a user's profile",
        description:
          `${OWN} (integrators need write permission). Replaces the editable fields: Email, Name, Phone, Language, ` +
          'betaUser and `<Vendor>Integration` flags; optional ones left out are cleared. Uid may be sent but must equal the ' +
          'path. BDUser, Admin, integrators, FCMTokens, the password and the status flags cannot be set here (400: not an ' +
          'allowed field); status flags change through PATCH .../status. ' +
          EMAIL_CHANGE_DESCRIPTION,
        params: UserIdParams,
        body: ReplaceUserBody,
        response: ProfileChanged,
      },
      config: { changesAccess: true, access: 'own' },
    },
    async (req, reply) => {
      const { userId } = req.params
      const body = req.body
      if (body.Uid !== undefined && body.Uid !== userId) {
        throw validationFailed([
          { field: 'Uid', message: 'must equal the user id of the path: a Uid cannot be changed' },
        ])
      }
      const current = await requireUser(userId)
      const newEmail = await emailToConfirm(req, current, body.Email)
      const flags = splitFlagChanges(integrationFlagsOf(body)).set
      checkFlagCount(Object.keys(flags).length)
      const { uid: _uid, ...columns } = users.toColumns({
        ...body,
        Email: newEmail === undefined ? body.Email : current.email,
      })
      // A replace: the optional fields left out are cleared.
      const result = await updateUniqueUser(db, userId, {
        phone: null,
        language: null,
        beta_user: null,
        ...columns,
        integration_flags: JSON.stringify(flags),
      })
      return profileChangedAnswer(req, reply, result, newEmail)
    },
  )

  app.patch(
    '/users/:userId',
    {
      schema: {
        operationId: 'updateUser',
        summary: "Change some of a user's profile fields",
        description:
          `${OWN} (integrators need write permission). Changes only the fields sent: Email, Name, Phone, Language, ` +
          'betaUser, `<Vendor>Integration` flags; null clears Phone, Language or betaUser and removes a flag. At least one ' +
          'field. The same read-only fields as PUT are refused with 400. ' +
          EMAIL_CHANGE_DESCRIPTION,
        params: UserIdParams,
        body: PatchUserBody,
        response: ProfileChanged,
      },
      config: { changesAccess: true, access: 'own' },
    },
    async (req, reply) => {
      const { userId } = req.params
      const body = req.body
      const current = await requireUser(userId)
      const newEmail = await emailToConfirm(req, current, body.Email)
      const flagChanges = integrationFlagsOf(body)
      checkFlagCount(flagCountAfter(current.integration_flags, flagChanges))
      const flags = splitFlagChanges(flagChanges)
      const hasFlags = Object.keys(flags.set).length > 0 || flags.remove.length > 0
      const result = await updateUniqueUser(db, userId, {
        ...users.toColumns(newEmail === undefined ? body : { ...body, Email: undefined }),
        ...(hasFlags ? { integration_flags: mergedIntegrationFlags(flags.set, flags.remove) } : {}),
      })
      return profileChangedAnswer(req, reply, result, newEmail)
    },
  )

  app.delete(
    '/users/:userId',
    {
      schema: {
        operationId: 'deleteUser',
        summary: 'Delete a user and all their data',
        description:
          "The account's own user token only: deleting an account is its owner's (and the operator's, `livestock-api " +
          'user delete`); a linked integrator, even with delete permission, gets 403. Deletes the account and, in one ' +
          'transaction, all its data: ' +
          'animals, readings, records, devices, predictions, push tokens, integrator links and sessions. The data is deleted, ' +
          'not anonymised, and cannot be restored. Every token of the account stops working at once. To only ask for ' +
          'deletion, set requestDeletion through PATCH .../status.',
        params: UserIdParams,
        response: { 200: MessageEnvelope('Deleted', 'User and all their data deleted') },
      },
      config: { changesAccess: true, access: 'self' },
    },
    async (req) => {
      if (!(await deleteUserAndData(db, req.params.userId, app.clock()))) throw notFound('User')
      return okMessage('User and all their data deleted')
    },
  )

  app.get(
    '/users/:userId/profile',
    {
      schema: {
        operationId: 'getUserProfile',
        summary: "A user's public profile",
        description: `${OWN}. Only Uid, Name and Language (absent when not set).`,
        params: UserIdParams,
        response: { 200: Envelope(UserProfile) },
      },
      config: { access: 'own' },
    },
    async (req) => ok(toProfile(await requireUser(req.params.userId))),
  )

  app.get(
    '/users/:userId/push-tokens',
    {
      schema: {
        operationId: 'listPushTokens',
        summary: "List a user's push tokens",
        description: `${OWN}. Every push token of the account (at most ${MAX_PUSH_TOKENS}), oldest first, as UserPhone entries.`,
        params: UserIdParams,
        response: { 200: Envelope(Type.Array(PushTokenRef, { maxItems: MAX_PUSH_TOKENS })) },
      },
      config: { access: 'own' },
    },
    async (req) => {
      await requireUser(req.params.userId)
      return ok((await listPushTokens(db, req.params.userId)).map(toApiPushToken))
    },
  )

  app.post(
    '/users/:userId/push-tokens',
    {
      schema: {
        operationId: 'addPushToken',
        summary: 'Add a push token',
        description:
          `${OWN} (integrators need write permission). Body keys are lower-case (token, customName, name, email, ` +
          'rank 1-3 optional); the entry is stored and returned with the UserPhone keys, `t` set by the service (ms since epoch). ' +
          'Registering a token the account already has updates that entry and answers 200; a new token answers 201. An ' +
          `account holds at most ${MAX_PUSH_TOKENS} tokens (409 beyond).`,
        params: UserIdParams,
        body: PushTokenBody,
        response: {
          201: Envelope(PushTokenRef, 'Token added', 'Push token added'),
          200: Envelope(PushTokenRef, 'Token already registered; entry updated', 'Push token updated'),
          409: Type.Ref('ErrorEnvelope', { description: 'The account holds the most push tokens allowed' }),
        },
      },
      config: { access: 'own', idempotent: true },
    },
    async (req, reply) => {
      const { token, customName, name, email, rank } = req.body
      const result = await addPushToken(db, {
        uid: req.params.userId,
        token,
        custom_name: customName,
        name,
        email,
        rank: rank ?? null,
        t: app.clock(),
      })
      if ('missingUser' in result) throw notFound('User')
      if ('full' in result) throw conflict(`An account holds at most ${MAX_PUSH_TOKENS} push tokens: remove one first`)
      void reply.code(result.created ? 201 : 200)
      return ok(toApiPushToken(result.row), result.created ? 'Push token added' : 'Push token updated')
    },
  )

  app.patch(
    '/users/:userId/status',
    {
      schema: {
        operationId: 'updateUserStatus',
        summary: "Update a user's status",
        description:
          `${OWN} (integrators need write permission). Body: flagged, inactive, requestDeletion (booleans, at least ` +
          "one). inactive is the owner's alone: a linked integrator may set flagged and requestDeletion only, and a body " +
          'with inactive from an integrator gets 403 `Only the account owner can deactivate or reactivate the account`. ' +
          'inactive true blocks the account at once: it cannot log in, its access tokens stop working and its refresh ' +
          'tokens are revoked, for good. A user deactivating their own account is locked out: only the operator ' +
          '(`livestock-api user update --inactive false`) can set inactive false again. ' +
          'requestDeletion only records the request; DELETE /users/{userId} deletes. Returns the user.',
        params: UserIdParams,
        body: UserStatusBody,
        response: { 200: Envelope(UserRef, 'The user as stored now', 'User status updated') },
      },
      config: { changesAccess: true, access: 'own' },
    },
    async (req) => {
      const { flagged, inactive, requestDeletion } = req.body
      // An integrator that could deactivate the account could lock its owner out and keep the data to itself.
      if (inactive !== undefined && callerOf(req).kind === 'integrator') {
        throw forbidden('Only the account owner can deactivate or reactivate the account')
      }
      const row = await updateUserStatus(
        db,
        req.params.userId,
        {
          ...(flagged !== undefined ? { flagged } : {}),
          ...(inactive !== undefined ? { inactive } : {}),
          ...(requestDeletion !== undefined ? { request_deletion: requestDeletion } : {}),
        },
        app.clock(),
      )
      return ok(await userView(req, orNotFound(row, 'User')), 'User status updated')
    },
  )
}
