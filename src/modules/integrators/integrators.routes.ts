// Account links: the owner of an account authorises an integrator to read it (or withdraws that).
import type { FastifyRequest } from 'fastify'
import type { App } from '../../types.ts'
import { userCallerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, ok } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { findIntegrator, link, linkedIntegratorUids, unlink } from './integrators.repository.ts'
import { LinkRequest, LinkResponse, UnlinkParams } from './integrators.schemas.ts'

const LINKED = 'Integrator linked to the account'
const UNLINKED = 'Integrator unlinked from the account'
/** What link and unlink answer: the integrators linked to the account now, and what was done. */
const LinksEnvelope = (message: string) => Envelope(LinkResponse, 'The integrators linked now', message)

export const integratorsModule = defineModule({
  tag: 'partners',
  description: 'Links between accounts and integrators',
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
}
