// Response serializers, compiled once per distinct schema instead of once per route and status: most
// routes share their error responses (the envelope of ErrorEnvelope), and compiling them anew was most of
// buildApp (docs/runtime.md). Same serializers, built once.
import fastJson, { type Options } from 'fast-json-stringify'

type Serializer = (data: unknown) => string

/** Fastify's `schemaController.compilersFactory.buildSerializer`, with a cache keyed by the schema's JSON. */
export function cachingSerializerFactory(externalSchemas?: unknown, serializerOpts?: Options) {
  const options: Options = { ...serializerOpts, schema: externalSchemas as Options['schema'] }
  const cache = new Map<string, Serializer>()
  return ({ schema }: { schema?: unknown }): Serializer => {
    const key = JSON.stringify(schema)
    let serializer = cache.get(key)
    if (!serializer) {
      serializer = fastJson(schema as Parameters<typeof fastJson>[0], options)
      cache.set(key, serializer)
    }
    return serializer
  }
}
