// Account links: the owner of an account authorises an integrator to read it (or withdraws that).
import type { FastifyRequest } from 'fastify'
import type { App } from '../../types.ts'
import { userCallerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, ok } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import Type from 'typebox'
import { BoundedString, EXAMPLE } from '../../http/schema-types.ts'
import { findIntegrator, link, linkedIntegrators, linkedIntegratorUids, unlink } from './integrators.repository.ts'
import { LinkedIntegrator, LinkRequest, LinkResponse, UnlinkParams } from './integrators.schemas.ts'

const LINKED = 'Integrator linked to the account'
const UNLINKED = 'Integrator unlinked from the account'
/** What link and unlink answer: the integrators linked to the account now, and what was done. */
const LinksEnvelope = (message: string) => Envelope(LinkResponse, 'The integrators linked now', message)

export const integratorsModule = defineModule({
  tag: 'partners',
  description: 'Links between accounts and integrators',
  schemas: [LinkedIntegrator],
  routes: integratorRoutes,
})

async function integratorRoutes(app: App) {
  const db = app.database.db

  /** The answer of a link and of an unlink: the integrators linked to the caller's account now. */
  const answerWithLinks = async (req: FastifyRequest, message: string) =>
    ok({ integrators: await linkedIntegratorUids(db, userCallerOf(req).user.uid) }, message)

  app.post(
    '/partners/link',
    {
      schema: {
        operationId: 'linkIntegrator',
        summary: 'Link an integrator to your account',
        description:
          'User token of the account owner (an integrator token gets 403: an integrator cannot link itself). ' +
          'Body `{integratorUID}`. Linking an already linked integrator changes nothing. An unknown or inactive integrator gets 404. ' +
          "Returns the account's `integrators` array.",
        body: LinkRequest,
        response: { 200: LinksEnvelope(LINKED) },
      },
      config: { changesAccess: true, access: 'userToken' },
    },
    async (req) => {
      const integrator = await findIntegrator(db, req.body.integratorUID)
      if (!integrator || !integrator.is_active) throw notFound('Integrator')
      await link(db, userCallerOf(req).user.uid, integrator.uid, 'owner')
      return answerWithLinks(req, LINKED)
    },
  )

  app.delete(
    '/partners/link/:integratorUid',
    {
      schema: {
        operationId: 'unlinkIntegrator',
        summary: 'Unlink an integrator from your account',
        description:
          'User token of the account owner. The integrator loses access to the account at once. 404 when it was not linked.',
        params: UnlinkParams,
        response: { 200: LinksEnvelope(UNLINKED) },
      },
      config: { changesAccess: true, access: 'userToken' },
    },
    async (req) => {
      if (!(await unlink(db, userCallerOf(req).user.uid, req.params.integratorUid))) throw notFound('Link')
      return answerWithLinks(req, UNLINKED)
    },
  )

  app.get(
    '/users/:userId/integrators',
    {
      schema: {
        operationId: 'listLinkedIntegrators',
        summary: 'The integrators linked to your account',
        description:
          "The account owner's user token only. Who can reach the account's data: each linked integrator's name and contact, " +
          'whether the operator has it active, what it may do (read, write, delete), when and by whom it was linked, and ' +
          "its last request on the account still in the access log. Oldest link first. The spec's `integrators` array " +
          'on the user holds the same UIDs.',
        params: Type.Object({ userId: BoundedString(200, "The account's Uid", EXAMPLE.uid) }),
        response: {
          200: Envelope(Type.Array(Type.Ref('LinkedIntegrator'), { maxItems: 1000 }), 'The linked integrators'),
        },
      },
      config: { access: 'self' },
    },
    async (req) => {
      const rows = await linkedIntegrators(db, req.params.userId)
      return ok(
        rows.map((row) => ({
          integratorUID: row.uid,
          name: row.name,
          email: row.email,
          isActive: row.is_active,
          permissions: { canRead: row.can_read, canWrite: row.can_write, canDelete: row.can_delete },
          linkedAt: row.linked_at.toISOString(),
          linkedBy: row.linked_by,
          lastRequestAt: row.last_request_at?.toISOString() ?? null,
        })),
      )
    },
  )
}
