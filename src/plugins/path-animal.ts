// `config: { animal: 'path' }`: the animal of the path's :userId and :animalMac is loaded before the
// handler (after the access check and the Idempotency-Key claim) and put on the request as
// `req.pathAnimal`; a MAC that names none of the user's animals, whatever its form, ends in 404 "Animal
// not found". app.ts hands in the lookup, so this plugin knows no feature module.
import type { FastifyInstance, RouteOptions, preHandlerAsyncHookHandler } from 'fastify'
import { notFound } from '../http/errors.ts'

export type FindAnimalOfPath = (uid: string, mac: string) => Promise<object | undefined>

export function pathAnimalPlugin(app: FastifyInstance, find: FindAnimalOfPath) {
  app.decorateRequest('pathAnimal', null as never)
  const load: preHandlerAsyncHookHandler = async (req) => {
    const { userId, animalMac } = req.params as { userId: string; animalMac: string }
    const animal = await find(userId, animalMac)
    if (!animal) throw notFound('Animal')
    ;(req as { pathAnimal?: object }).pathAnimal = animal
  }
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.animal !== 'path') return
    if (!route.url.includes(':userId') || !route.url.includes(':animalMac'))
      throw new Error(`Route ${String(route.method)} ${route.url}: config.animal 'path' needs :userId and :animalMac`)
    const existing =
      route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
    route.preHandler = [...existing, load]
  })
}
