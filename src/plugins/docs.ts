// OpenAPI 3.1 generated from the route schemas, served at /api/v1/openapi.json, and the Scalar
// reference at /api/v1/docs with its script served by this service (no CDN). Scalar's plugin module holds
// its browser bundle as one string literal, costly to import (docs/runtime.md), so it is imported on the first
// request to the reference, not at start (see scalarRoutes).
import { createHash } from 'node:crypto'
import swagger from '@fastify/swagger'
import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference'
import Type from 'typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { ERROR_EXAMPLES, Timestamp, commonErrors } from '../http/envelope.ts'
import { documentResponseHeaders, referenceResponseHeaders } from '../http/response-headers.ts'
import { API_PREFIX } from '../http/route-policy.ts'
import { isoTimestamp } from '../http/timestamp.ts'
import { refuseUnknownQueryParameters } from './validation.ts'
import { VERSION } from '../version.ts'

/** `tags`: one per feature module, in the order the document lists them; `webhooks`: the messages modules send. */
export async function registerOpenApi(
  app: FastifyInstance,
  tags: { name: string; description: string }[],
  webhooks: Record<string, object> = {},
) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Livestock API',
        version: VERSION,
        description:
          'JSON REST API for livestock monitoring: farm accounts, animals with ear-tag sensors and their readings, ' +
          'farm records, litter-monitoring devices and AI predictions. Every body uses the envelope ' +
          '`{success, data | error, details?, message?, pagination?, timestamp}`. Every response carries `X-Request-Id` ' +
          '(taken from the request when it sends one).',
      },
      // x-internal false: the API is for third parties (integrators), not only the farm's own tools.
      servers: [
        {
          url: '/',
          description: 'This deployment: the server that serves this document, local, staging or production alike',
          'x-internal': false,
        } as { url: string },
      ],
      tags: [...tags, { name: 'operations', description: 'Operator endpoints' }],
      webhooks,
      // Every operation needs a bearer token unless it says otherwise (public ones carry `security: []`).
      security: [{ bearer: [] }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'Integrator token from POST /tokens or user token from POST /tokens/login: a JWS that follows the JWT Best ' +
              'Current Practices of RFC8725 (one algorithm, HS256; explicit typ at+jwt, so a refresh token rt+jwt never passes as one; ' +
              'issuer, audience and expiry checked).',
          },
        },
      },
    },
    // Shared schemas keep their $id as the component name instead of def-N.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (document) => {
      const doc = ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as OpenApiDocument
      referenceResponseHeaders(doc)
      exemplifyErrors(doc)
      return markDefaultedAsOptional(doc)
    },
  })
}

/** Every error response shows what its status typically says (the shared envelope alone would show a generic one). */
function exemplifyErrors(doc: OpenApiDocument) {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.['application/json']
        if (
          media &&
          media.example === undefined &&
          media.schema?.$ref === '#/components/schemas/ErrorEnvelope' &&
          ERROR_EXAMPLES[status]
        ) {
          media.example = ERROR_EXAMPLES[status]
        }
      }
    }
  }
}

interface SchemaObject {
  required?: string[]
  properties?: Record<string, { default?: unknown }>
}
interface Operation {
  parameters?: {
    in: string
    required?: boolean
    style?: string
    explode?: boolean
    schema?: { default?: unknown; type?: unknown }
  }[]
  requestBody?: { content?: Record<string, { schema?: SchemaObject }> }
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> }>
}
type OpenApiDocument = { paths?: Record<string, Record<string, Operation>> } & Record<string, unknown>

/**
 * A field with a default is filled in by the validator before the handler runs, so the route schema
 * lists it as required; to a client it is optional. The document says what the client sees. And the
 * query's filter object is a deepObject parameter: filter[Field]=value.
 */
function markDefaultedAsOptional(doc: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema?.default !== undefined) parameter.required = false
        // An object in the query is filter[Field]=value (http/list-params.ts).
        if (parameter.in === 'query' && parameter.schema?.type === 'object')
          Object.assign(parameter, { style: 'deepObject', explode: true })
      }
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        const schema = media.schema
        if (schema?.required && schema.properties) {
          schema.required = schema.required.filter((name) => schema.properties?.[name]?.default === undefined)
        }
      }
    }
  }
  return doc
}

const Link = (description: string, example: string) =>
  Type.String({ format: 'uri-reference', maxLength: 100, description, examples: [example] })

const ApiIndex = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      name: Type.Literal('livestock-api'),
      version: Type.String({
        pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+',
        maxLength: 64,
        description: 'The service release',
        examples: ['0.1.0'],
      }),
      apiVersion: Type.Literal('v1'),
      links: Type.Object({
        docs: Link('The interactive reference (Scalar)', `${API_PREFIX}/docs`),
        openapi: Link('The OpenAPI 3.1 document', `${API_PREFIX}/openapi.json`),
        health: Link('Liveness', `${API_PREFIX}/health`),
        ready: Link('Readiness', `${API_PREFIX}/health/ready`),
      }),
    }),
    timestamp: Timestamp,
  },
  { description: 'Where to start' },
)

const OpenApiObject = Type.Object(
  {
    openapi: Type.Literal('3.1.0'),
    info: Type.Object(
      {
        title: Type.String({ maxLength: 100, examples: ['Livestock API'] }),
        version: Type.String({ maxLength: 64, examples: ['0.1.0'] }),
      },
      { additionalProperties: true },
    ),
    paths: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'Every operation, by path',
        examples: [{ '/api/v1/health': { get: { operationId: 'getHealth', summary: 'Liveness' } } }],
      },
    ),
  },
  { additionalProperties: true, description: 'OpenAPI 3.1 document' },
)

/** What a public GET that takes no parameters can answer besides 200 (an unknown query parameter is a 400). */
const { 400: badRequest, 429: tooMany, 500: fault, 503: unavailable } = commonErrors
const publicErrors = { 400: badRequest, 429: tooMany, 500: fault, 503: unavailable }

export async function registerDocsRoutes(app: FastifyInstance) {
  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect(`${API_PREFIX}/docs`, 302))

  // The index and the document are API routes like the others: unknown query parameters refused, headers documented.
  await app.register(async (scope) => {
    scope.addHook('onRoute', refuseUnknownQueryParameters)
    scope.addHook('onRoute', documentResponseHeaders)

    scope.get(
      API_PREFIX,
      {
        schema: {
          tags: ['operations'],
          operationId: 'getApiIndex',
          summary: 'API index',
          description: 'Public. Links to the reference, the OpenAPI document and the health checks.',
          response: { 200: ApiIndex, ...publicErrors },
          security: [],
        },
      },
      async () => ({
        success: true as const,
        data: {
          name: 'livestock-api' as const,
          version: VERSION,
          apiVersion: 'v1' as const,
          links: {
            docs: `${API_PREFIX}/docs`,
            openapi: `${API_PREFIX}/openapi.json`,
            health: `${API_PREFIX}/health`,
            ready: `${API_PREFIX}/health/ready`,
          },
        },
        timestamp: isoTimestamp(),
      }),
    )

    scope.get(
      `${API_PREFIX}/openapi.json`,
      {
        schema: {
          tags: ['operations'],
          operationId: 'getOpenApiDocument',
          summary: 'OpenAPI 3.1 document',
          description: 'Public. This document.',
          response: { 200: OpenApiObject, ...publicErrors },
          security: [],
        },
      },
      async () => app.swagger(),
    )
  })

  scalarRoutes(app, {
    routePrefix: `${API_PREFIX}/docs`,
    configuration: {
      url: `${API_PREFIX}/openapi.json`,
      pageTitle: 'Livestock API reference',
      withDefaultFonts: false, // the default fonts come from a CDN; the page must work offline
      hideClientButton: true,
      telemetry: false,
      defaultOpenAllTags: true,
      // Hosted add-ons (AI agent, MCP generator, developer tools) call other services; this page stays offline.
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    } as Record<string, unknown>,
  })
}

/**
 * The routes Scalar's Fastify plugin registers (with `routePrefix` P and a `url` configured, so it serves no
 * document of its own): P (a redirect to P/), the page at P/ and its script at P/js/scalar.js.
 */
export const scalarPaths = (prefix: string) => [prefix, `${prefix}/`, `${prefix}/js/scalar.js`]

type Handler = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown

/**
 * Scalar's own handlers, made by running its plugin against a stand-in that records the routes it adds
 * (the plugin uses route(), hasPlugin(), initialConfig and log, nothing else).
 */
export async function loadScalarHandlers(
  app: FastifyInstance,
  options: FastifyApiReferenceOptions,
): Promise<Map<string, Handler>> {
  const { default: plugin } = await import('@scalar/fastify-api-reference')
  const handlers = new Map<string, Handler>()
  const recorder = {
    route: (route: RouteOptions) => {
      handlers.set(route.url, route.handler)
    },
    hasPlugin: () => false,
    initialConfig: app.initialConfig,
    log: app.log,
  }
  await new Promise<void>((resolve, reject) => {
    plugin(recorder as unknown as Parameters<typeof plugin>[0], options, (err?: Error) =>
      err ? reject(err) : resolve(),
    )
  })
  return handlers
}

/**
 * The reference page's Content-Security-Policy: scripts from this host and the page's own inline scripts by
 * hash (no 'unsafe-inline' for scripts), everything else from this host (Scalar sets inline styles and uses
 * data: images and fonts), and no other site may frame the page.
 */
export function docsPagePolicy(html: string): string {
  const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    ([, body]) => `'sha256-${createHash('sha256').update(body!).digest('base64')}'`,
  )
  return [
    "default-src 'self'",
    `script-src ${["'self'", ...hashes].join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** Registers Scalar's routes now, and loads the plugin that answers them on the first request to one. */
function scalarRoutes(app: FastifyInstance, options: FastifyApiReferenceOptions & { routePrefix: `/${string}` }) {
  let loading: Promise<Map<string, Handler>> | undefined
  let policy: string | undefined
  const withPolicy = (
    _req: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (err: null, p: unknown) => void,
  ) => {
    if (typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html'))
      void reply.header('content-security-policy', (policy ??= docsPagePolicy(payload)))
    done(null, payload)
  }
  for (const url of scalarPaths(options.routePrefix)) {
    app.get(url, { schema: { hide: true }, onSend: withPolicy }, async function (request, reply) {
      loading ??= loadScalarHandlers(app, options).catch((err: unknown) => {
        loading = undefined // a later request tries again
        throw err
      })
      const handler = (await loading).get(url)
      if (!handler) throw new Error(`@scalar/fastify-api-reference no longer serves ${url}`)
      return handler.call(this, request, reply)
    })
  }
}
