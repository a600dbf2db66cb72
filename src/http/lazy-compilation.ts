// Request validators and response serializers compiled on first use instead of when the app is built.
// Compiling every validator (ajv) and every serializer (fast-json-stringify) was much of a start's CPU, and
// heap that a deployment mostly never uses (docs/runtime.md): a process serves the routes its clients call.
// A route's first request pays for its own schemas.
// `compileAll` compiles whatever is still pending, so a test can still prove that every schema compiles.

export interface LazyCompilations {
  /** A getter that runs `compile` on its first call (or at compileAll) and returns that result from then on. */
  once<T>(compile: () => T): () => T
  /** Runs every compilation not run yet; throws the first error. */
  compileAll(): void
  /** How many compilations have not run yet. */
  readonly pending: number
}

export function lazyCompilations(): LazyCompilations {
  const pending = new Set<() => unknown>()
  return {
    once<T>(compile: () => T) {
      let done = false
      let result: T
      const get = (): T => {
        if (!done) {
          result = compile()
          done = true
          pending.delete(get)
        }
        return result
      }
      pending.add(get)
      return get
    },
    compileAll() {
      for (const get of [...pending]) get()
    },
    get pending() {
      return pending.size
    },
  }
}

type Serializer = (data: unknown) => string
type SerializerCompiler = (route: {
  schema?: unknown
  method?: string
  url?: string
  httpStatus?: string
  contentType?: string
}) => Serializer

/**
 * Fastify's `schemaController.compilersFactory.buildSerializer`, with each route's serializers compiled by
 * `factory` on their first use.
 */
export function lazySerializerFactory<O>(
  factory: (externalSchemas?: unknown, options?: O) => SerializerCompiler,
  lazily: LazyCompilations,
) {
  return (externalSchemas?: unknown, options?: O): SerializerCompiler => {
    let compiler: SerializerCompiler | undefined
    return (route) => {
      const serializer = lazily.once(() => (compiler ??= factory(externalSchemas, options))(route))
      return (data) => serializer()(data)
    }
  }
}
