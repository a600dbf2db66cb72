// Account links: the owner of an account authorises an integrator to read it (or withdraws that).
import type { App } from '../../types.ts'
import { userCallerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, ok } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { findIntegrator, link, linkedIntegratorUids, unlink } from './integrators.repository.ts'
import { LinkRequest, LinkResponse, UnlinkParams } from './integrators.schemas.ts'

export const integratorsModule = defineModule({
  tag: 'partners',
  description: 'Links between accounts and integrators',
  routes: integratorRoutes,
})

async function integratorRoutes(app: App) {
  const db = app.database.db

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
        response: { 200: Envelope(LinkResponse, 'The integrators linked now', 'Integrator linked to the account') },
      },
      config: { changesAccess: true, access: 'userToken' },
    },
    async (req) => {
      const { user } = userCallerOf(req)
      const integrator = await findIntegrator(db, req.body.integratorUID)
      if (!integrator || !integrator.is_active) throw notFound('Integrator')
      await link(db, user.uid, integrator.uid, 'owner')
      return ok({ integrators: await linkedIntegratorUids(db, user.uid) }, 'Integrator linked to the account')
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
        response: { 200: Envelope(LinkResponse, 'The integrators linked now', 'Integrator unlinked from the account') },
      },
      config: { changesAccess: true, access: 'userToken' },
    },
    async (req) => {
      const { user } = userCallerOf(req)
      if (!(await unlink(db, user.uid, req.params.integratorUid))) throw notFound('Link')
      return ok({ integrators: await linkedIntegratorUids(db, user.uid) }, 'Integrator unlinked from the account')
    },
  )
}
