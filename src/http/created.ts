// 201 Created with a Location header naming the new resource under the API prefix.
import type { FastifyReply } from 'fastify'
import { API_PREFIX } from './route-policy.ts'

export function created<T>(reply: FastifyReply, path: string, body: T): FastifyReply {
  const location =
    API_PREFIX +
    path
      .split('/')
      .map((segment) => encodeURIComponent(segment))
      .join('/')
  return reply.code(201).header('location', location).send(body)
}
