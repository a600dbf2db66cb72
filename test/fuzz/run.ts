// `npm run test:fuzz`: property-based fuzzing (fast-check) of every operation of the OpenAPI document,
// in-process with app.inject. Each operation gets FUZZ_RUNS cases (default 200) with a token its route
// accepts: valid, boundary and hostile values in its path, query, headers and body. Every response must
// pass responseProblems (oracle.ts), and the app must still answer GET /health after each operation.
//
// Replay: FUZZ_SEED=<the seed printed> npm run test:fuzz; FUZZ_OPERATION='PATCH /api/v1/users/{userId}'
// narrows the run to operations whose id contains that text (each operation's cases depend only on the
// seed and its id). The embedded store by default; with DATABASE_URL/REDIS_URL, those servers.
import { createHash, randomInt } from 'node:crypto'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import fc from 'fast-check'
import { createTestApp } from '../support/app.ts'
import { operationsOf, type OpenApiDocument, type Operation } from './operations.ts'
import { responseProblems, type FuzzResponse } from './oracle.ts'
import { requestArbitrary, type FuzzRequest } from './requests.ts'
import { SchemaValues } from './values.ts'
import { createWorld } from './world.ts'

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31)
const runs = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 200
const only = process.env.FUZZ_OPERATION
// FUZZ_SHARD=k/n: the k-th of n runs that split the operations between them (CI runs two beside the bench, with one
// FUZZ_SEED); an operation's cases are the same in whichever shard it falls.
const shard = /^(\d+)\/(\d+)$/.exec(process.env.FUZZ_SHARD ?? '1/1')
const [shardIndex, shardCount] = shard ? [Number(shard[1]), Number(shard[2])] : [0, 0]
if (!Number.isInteger(seed) || !Number.isInteger(runs) || runs < 1) {
  console.error('FUZZ_SEED and FUZZ_RUNS must be integers (FUZZ_RUNS at least 1)')
  process.exit(2)
}
if (shardIndex < 1 || shardIndex > shardCount) {
  console.error('FUZZ_SHARD must be k/n with 1 <= k <= n, such as 1/2')
  process.exit(2)
}
/** A request the app does not answer within this is a failure of its own (a hang). */
const ANSWER_TIMEOUT_MS = 15_000

console.log(
  `fuzz: seed ${seed}, ${runs} cases per operation${only ? `, operations matching "${only}"` : ''}${shardCount > 1 ? `, shard ${shardIndex} of ${shardCount}` : ''}`,
)
console.log(`fuzz: replay with FUZZ_SEED=${seed} npm run test:fuzz`)
const started = performance.now()

const ctx = await createTestApp()
const documentResponse = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
const document = documentResponse.json<OpenApiDocument>()
const components = document.components?.schemas ?? {}
const allOperations = operationsOf(document, ctx.app.routeCatalog)
const operations = allOperations
  .filter((operation) => !only || operation.id.includes(only))
  .filter((_, i) => i % shardCount === shardIndex - 1)
if (operations.length === 0) {
  console.error(`fuzz: no operation matches "${only}"`)
  process.exit(2)
}
const world = await createWorld(ctx, allOperations, components)
for (const collection of world.collectionsWithoutFixture) {
  console.log(`fuzz: warning: no fixture item for ${collection}; its item routes are fuzzed with ids that name nothing`)
}
const values = new SchemaValues(components, world.hints)

const statusCounts = new Map<number, number>()
let requestsSent = 0
let restores = 0
const failures: { operation: Operation; report: string }[] = []

async function send(request: FuzzRequest): Promise<FuzzResponse> {
  const headers = { ...request.headers }
  if (request.caller !== 'none') headers.authorization = `Bearer ${await world.token(request.caller)}`
  if (request.payload === '') headers['content-length'] = '0'
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS)
  })
  try {
    if (isStream(request)) return await Promise.race([sendToStream(request, headers), timeout])
    const response = await Promise.race([
      ctx.app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers,
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      }),
      timeout,
    ])
    return {
      statusCode: response.statusCode,
      headers: response.headers,
      body: decoded(response.rawPayload, response.headers['content-encoding']),
    }
  } finally {
    clearTimeout(timer)
  }
}

/** A route whose answer is a stream that does not end (Server-Sent Events): inject never resolves on it. */
const isStream = (request: FuzzRequest) => request.url.split('?')[0]!.endsWith('/events/stream')

/** A stream route's status and headers, and its body so far: all of a refusal, the first write of an open stream. */
async function sendToStream(request: FuzzRequest, headers: Record<string, string>): Promise<FuzzResponse> {
  const response = await ctx.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers,
    payloadAsStream: true,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  })
  const stream = response.stream()
  const chunks: Buffer[] = []
  const open = String(response.headers['content-type'] ?? '').startsWith('text/event-stream')
  await new Promise<void>((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      chunks.push(Buffer.from(chunk))
      if (open) resolve()
    })
    stream.on('end', () => resolve())
    stream.on('error', () => resolve())
  })
  stream.destroy()
  const raw = Buffer.concat(chunks)
  return {
    statusCode: response.statusCode,
    headers: response.headers,
    body: open ? raw.toString() : decoded(raw, response.headers['content-encoding']),
  }
}

/** The body as text, decompressed when the response has a content coding (cases may ask for one). */
function decoded(payload: Buffer, encoding: string | string[] | number | undefined): string {
  switch (encoding) {
    case 'br':
      return brotliDecompressSync(payload).toString()
    case 'gzip':
      return gunzipSync(payload).toString()
    case 'deflate':
      return inflateSync(payload).toString()
    default:
      return payload.toString()
  }
}

/** The text a body may legitimately echo: the URL as sent and decoded, and the body sent. */
function sentText(request: FuzzRequest): string {
  let decoded = ''
  try {
    decoded = decodeURIComponent(request.url)
  } catch {
    /* a bad %-escape: the raw URL is enough */
  }
  const payload =
    request.payload === undefined
      ? ''
      : typeof request.payload === 'string'
        ? request.payload
        : request.payload.toString('latin1')
  return `${request.url}\n${decoded}\n${payload.length > 100_000 ? '' : payload}`
}

function describeRequest(request: FuzzRequest): string {
  const clip = (text: string) => (text.length > 400 ? `${text.slice(0, 400)}... (${text.length} characters)` : text)
  const payload =
    request.payload === undefined
      ? '(no body)'
      : typeof request.payload === 'string'
        ? JSON.stringify(clip(request.payload))
        : `bytes ${request.payload.toString('hex')}`
  return `${request.method} ${clip(request.url)} as ${request.caller}, headers ${JSON.stringify(request.headers)}, body ${payload}`
}

/** A 32-bit seed per operation, from the run's seed and the operation's id: adding an operation changes no other's cases. */
function operationSeed(operation: Operation): number {
  return createHash('sha256').update(`${seed}:${operation.id}`).digest().readInt32LE(0)
}

function histogramOf(counts: Map<number, number>): string {
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ')
}

for (const operation of operations) {
  let lastFailure = ''
  const operationStatuses = new Map<number, number>()
  const property = fc.asyncProperty(requestArbitrary(operation, world, values), async (request) => {
    const response = await send(request)
    requestsSent++
    statusCounts.set(response.statusCode, (statusCounts.get(response.statusCode) ?? 0) + 1)
    operationStatuses.set(response.statusCode, (operationStatuses.get(response.statusCode) ?? 0) + 1)
    // A change the case made (an update, a delete, a password, a link) must not leak into the next case.
    if (
      request.method !== 'GET' &&
      response.statusCode >= 200 &&
      response.statusCode < 300 &&
      response.statusCode !== 201
    ) {
      await world.restore()
      restores++
    }
    const problems = responseProblems(operation, response, sentText(request))
    if (problems.length > 0) {
      lastFailure = `${problems.join('; ')}\n    request: ${describeRequest(request)}\n    response: ${response.statusCode} ${response.body.slice(0, 600)}`
      throw new Error(problems.join('; '))
    }
  })
  const operationStarted = performance.now()
  const details = await fc.check(property, { seed: operationSeed(operation), numRuns: runs })
  if (details.failed) {
    failures.push({
      operation,
      report: `${lastFailure || String(details.errorInstance)}\n    fast-check: seed ${details.seed}, path "${details.counterexamplePath}", shrunk ${details.numShrinks} times`,
    })
  }
  console.log(
    `${details.failed ? 'FAIL' : 'ok  '} ${operation.id} (${Math.round(performance.now() - operationStarted)} ms): ${histogramOf(operationStatuses)}`,
  )
  const health = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
  if (health.statusCode !== 200) {
    failures.push({
      operation,
      report: `GET /api/v1/health answered ${health.statusCode} after this operation's cases`,
    })
    break
  }
}

await ctx.close()
const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(
  `fuzz: ${operations.length} operations, ${requestsSent} requests (${runs} cases each, plus shrinking), ${restores} fixture restores, ${seconds} s`,
)
console.log(`fuzz: statuses ${histogramOf(statusCounts)}`)
for (const { operation, report } of failures) console.log(`\n${operation.id}\n    ${report}`)
console.log(
  `\nfuzz: ${operations.length - new Set(failures.map((f) => f.operation)).size} passed, ${new Set(failures.map((f) => f.operation)).size} failed`,
)
console.log(`fuzz: seed ${seed}`)
process.exit(failures.length === 0 ? 0 : 1)
