// The operations of the OpenAPI document, each with its parameters, body schema, documented statuses
// and the access rule of its route (from the app's route catalog), so that a new route is fuzzed as
// soon as the document lists it.
import type { RouteEntry } from '../../src/app.ts'
import type { AccessRule } from '../../src/http/route-policy.ts'
import type { JsonSchema } from './values.ts'

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  required: boolean
  schema: JsonSchema
}

export interface Operation {
  /** "POST /api/v1/users/{userId}/animals": the name a failure report and FUZZ_OPERATION use. */
  id: string
  method: string
  /** The document's path template, with {name} placeholders. */
  path: string
  pathParameters: Parameter[]
  queryParameters: Parameter[]
  headerParameters: Parameter[]
  body: JsonSchema | undefined
  documentedStatuses: Set<number>
  /** undefined for routes outside the API scope (GET /metrics, the docs). */
  access: AccessRule | undefined
  /** The document says no token is needed (`security: []`). */
  isPublic: boolean
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[]
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
        responses?: Record<string, unknown>
        security?: unknown[]
      }
    >
  >
  components?: { schemas?: Record<string, JsonSchema> }
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete'])

export function operationsOf(document: OpenApiDocument, catalog: RouteEntry[]): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue
      const upper = method.toUpperCase()
      const parameters = (operation.parameters ?? []).map((p) => ({
        name: p.name,
        in: p.in as Parameter['in'],
        required: p.required ?? false,
        schema: p.schema ?? {},
      }))
      const fastifyUrl = path.replace(/\{([^}]+)\}/g, ':$1')
      operations.push({
        id: `${upper} ${path}`,
        method: upper,
        path,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        headerParameters: parameters.filter((p) => p.in === 'header'),
        body: operation.requestBody?.content?.['application/json']?.schema,
        documentedStatuses: new Set(Object.keys(operation.responses ?? {}).map(Number)),
        access: catalog.find((route) => route.method === upper && route.url === fastifyUrl)?.access,
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
      })
    }
  }
  return operations
}
