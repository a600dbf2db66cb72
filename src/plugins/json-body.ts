// The only body parser: JSON, parsed with secure-json-parse so that __proto__ and
// constructor.prototype keys are refused (prototype poisoning), with a message that says which.
// Any other content type on a body is a 415.
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { ApiError } from '../http/errors.ts'

export function jsonBodyPlugin(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string
    if (text.length === 0) {
      done(new ApiError(400, 'Body is empty but the content type is application/json'), undefined)
      return
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }))
    } catch (err) {
      const poisoned = err instanceof SyntaxError && /forbidden (prototype|constructor)/i.test(err.message)
      done(
        new ApiError(
          400,
          poisoned ? 'Body contains a forbidden key (__proto__ or constructor.prototype)' : 'Body is not valid JSON',
        ),
        undefined,
      )
    }
  })
}
