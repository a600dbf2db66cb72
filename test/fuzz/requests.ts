// One fuzz case of an operation: a raw request (URL as sent, so bad %-encodings survive), built from the
// operation's parameters and body schema, with the caller that the route's access rule accepts.
import fc from 'fast-check'
import type { Operation, Parameter } from './operations.ts'
import type { CallerKind, World } from './world.ts'
import { HOSTILE_STRINGS, RawJson, hostileValue, toJsonText, type FuzzValue, type SchemaValues } from './values.ts'

export interface FuzzRequest {
  method: string
  caller: CallerKind
  url: string
  headers: Record<string, string>
  payload: string | Buffer | undefined
}

/** Path segments and query fragments that do not decode, or decode to something a router should not see. */
const BAD_ENCODINGS = [
  '%zz',
  '%',
  '%E0%A4%A',
  '%00',
  '%2F',
  '%2e%2e',
  '..',
  '.',
  '%C0%AF',
  '%ED%A0%80',
  '%FF%FE',
  'a%20b',
  '%25',
  '%u0041',
]

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/jsonx',
  'application/vnd.api+json',
  'application/json;',
  ';',
  '*/*',
]

/** Whole bodies that are not what any route reads: empty, not JSON, the wrong top-level type, poisoned, huge, deep. */
const HOSTILE_BODIES: (string | Buffer)[] = [
  '',
  ' ',
  'null',
  'true',
  '0',
  '-0',
  '1e309',
  '"text"',
  '[]',
  '[{}]',
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  'undefined',
  'NaN',
  '{"a":1,"a":2}',
  '\ufeff{}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"\\u0000":1}',
  '{"a":"\\ud800"}',
  '['.repeat(100_000) + ']'.repeat(100_000),
  '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
  `{"a":"${'x'.repeat(5 * 1024 * 1024)}"}`,
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d]),
]

export function requestArbitrary(operation: Operation, world: World, values: SchemaValues): fc.Arbitrary<FuzzRequest> {
  const caller = fc.constantFrom(...world.callersFor(operation.access, operation.isPublic))
  const path = fc
    .tuple(...operation.pathParameters.map((p) => pathSegment(operation, p, world, values)))
    .map((segments) =>
      segments.reduce(
        (url, segment, i) => url.replace(`{${operation.pathParameters[i]!.name}}`, segment),
        operation.path,
      ),
    )
  const query = queryString(operation.queryParameters, values)
  const headers = fc
    .tuple(
      ...operation.headerParameters.map((p) =>
        fc.option(
          headerValue(p, values).map((value) => [p.name, value] as const),
          { freq: 2, nil: undefined },
        ),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs.filter((pair) => pair !== undefined)))
  const http = fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: httpHeaders })
  return fc
    .record({ caller, path, query, headers, http, body: bodyOf(operation, values) })
    .map(({ caller, path, query, headers, http, body }) => ({
      method: operation.method,
      caller,
      url: query === '' ? path : `${path}?${query}`,
      headers: { ...http, ...headers, ...(body.contentType === undefined ? {} : { 'content-type': body.contentType }) },
      payload: body.payload,
    }))
}

/** Headers that no operation documents but the HTTP layer reads: content codings, conditional requests, CORS, request ids. */
const httpHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'accept-encoding': fc.constantFrom(
      'gzip',
      'br',
      'deflate',
      'gzip, deflate, br',
      '*',
      'identity;q=0',
      '*;q=0',
      'br;q=nan',
      'compress',
      'x'.repeat(5000),
    ),
    'content-encoding': fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'foo', 'gzip, gzip'),
    'if-none-match': fc.constantFrom('*', 'W/"x"', '"', 'W/', ',,,', 'x'.repeat(5000)),
    origin: fc.constantFrom('https://evil.example', 'null', '%00', 'http://localhost:3000'),
    'x-request-id': fc.constantFrom('a'.repeat(129), 'bad id', '../x', '%00', 'ok-id'),
    accept: fc.constantFrom('application/xml', 'text/html', '*/*', ''),
  },
  { requiredKeys: [] },
)

function pathSegment(
  operation: Operation,
  parameter: Parameter,
  world: World,
  values: SchemaValues,
): fc.Arbitrary<string> {
  const fixture = world.pathValue(operation.path, parameter.name)
  const choices: fc.WeightedArbitrary<string>[] = [
    { weight: 2, arbitrary: values.valid(parameter.schema).map((value) => percentEncode(textOf(value))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...values.boundary(parameter.schema)).map((value) => percentEncode(textOf(value))),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...HOSTILE_STRINGS)
        .filter((s) => s !== '')
        .map(percentEncode),
    },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_ENCODINGS) },
    { weight: 1, arbitrary: fc.constantFrom(201, 1000, 20_000).map((length) => 'a'.repeat(length)) },
  ]
  // The fixture most of the time: a path naming nothing ends at the access check or a 404, never deeper.
  if (fixture !== undefined) choices.push({ weight: 40, arbitrary: fc.constantFrom(percentEncode(fixture), fixture) })
  return fc.oneof(...choices)
}

function queryString(parameters: Parameter[], values: SchemaValues): fc.Arbitrary<string> {
  // A required parameter is mostly there, so that cases get past its absence to its value.
  const presence = (p: Parameter) => ({ freq: p.required ? 10 : 2, nil: undefined })
  const allValid = fc.tuple(...parameters.map((p) => fc.option(validFragment(p, values), presence(p))))
  const eachAsItFalls = fc.tuple(
    ...parameters.map((p) =>
      fc.option(
        fc.oneof({ weight: 2, arbitrary: validFragment(p, values) }, { weight: 1, arbitrary: oddFragment(p, values) }),
        presence(p),
      ),
    ),
  )
  // All valid but one: what that one meets is then the case.
  const oneOdd =
    parameters.length === 0
      ? allValid
      : fc
          .tuple(
            allValid,
            fc
              .integer({ min: 0, max: parameters.length - 1 })
              .chain((i) => oddFragment(parameters[i]!, values).map((odd) => [i, odd] as const)),
          )
          .map(([fragments, [i, odd]]) => fragments.map((fragment, at) => (at === i ? odd : fragment)))
  const known = fc.oneof(allValid, eachAsItFalls, oneOdd)
  const extra = fc.oneof(
    fc.constantFrom(
      '__proto__=1',
      '__proto__[admin]=true',
      'constructor[prototype][admin]=true',
      'unknown=1',
      '%zz=1',
      '=',
      '&',
      'a',
      'a[]=1',
      'a[b]=1',
      '%=1',
      'page=1&page=2',
      'limit[]=5',
      `${'k'.repeat(10_000)}=1`,
      Array.from({ length: 1000 }, (_, i) => `k${i}=${i}`).join('&'),
    ),
    fc.constantFrom(...HOSTILE_STRINGS).map((s) => `${percentEncode(s)}=${percentEncode(s)}`),
  )
  return fc
    .tuple(
      known,
      fc.oneof(
        { weight: 8, arbitrary: fc.constant([] as string[]) },
        { weight: 1, arbitrary: fc.array(extra, { minLength: 1, maxLength: 3 }) },
      ),
    )
    .map(([fragments, extras]) => [...fragments.filter((f) => f !== undefined), ...extras].join('&'))
}

function validFragment(parameter: Parameter, values: SchemaValues): fc.Arbitrary<string> {
  return values
    .valid(parameter.schema, parameter.name)
    .map((value) => `${parameter.name}=${percentEncode(textOf(value))}`)
}

/** A parameter at a bound, hostile, badly encoded, repeated, empty, alone or in bracket syntax. */
function oddFragment(parameter: Parameter, values: SchemaValues): fc.Arbitrary<string> {
  const name = parameter.name
  const one = (arbitrary: fc.Arbitrary<FuzzValue>) =>
    arbitrary.map((value) => `${name}=${percentEncode(textOf(value))}`)
  return fc.oneof(
    { weight: 2, arbitrary: one(fc.constantFrom(...values.boundary(parameter.schema))) },
    { weight: 3, arbitrary: one(hostileValue) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_ENCODINGS).map((bad) => `${name}=${bad}`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(values.valid(parameter.schema), fc.constantFrom(...values.boundary(parameter.schema)))
        .map(([a, b]) => `${name}=${percentEncode(textOf(a))}&${name}=${percentEncode(textOf(b))}`),
    },
    { weight: 1, arbitrary: fc.constantFrom(`${name}=`, name, `${name}[]=1`, `${name}[x]=1`, `${name}=1&${name}=`) },
  )
}

function headerValue(parameter: Parameter, values: SchemaValues): fc.Arbitrary<string> {
  // Node refuses header values with CR, LF or NUL before a server sees them; everything else may reach it.
  const sendable = (s: string) => !/[\r\n\0]/.test(s)
  return fc.oneof(
    { weight: 4, arbitrary: values.valid(parameter.schema, parameter.name).map(textOf) },
    { weight: 2, arbitrary: fc.constantFrom(...values.boundary(parameter.schema)).map(textOf) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...HOSTILE_STRINGS)
        .map((s) => Buffer.from(s, 'utf8').toString('latin1'))
        .filter(sendable),
    },
  )
}

interface Body {
  payload: string | Buffer | undefined
  contentType: string | undefined
}

function bodyOf(operation: Operation, values: SchemaValues): fc.Arbitrary<Body> {
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  )
  const hostileBody = fc.record({ payload: fc.constantFrom(...HOSTILE_BODIES), contentType })
  if (!operation.body) {
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant({ payload: undefined, contentType: undefined }) },
      { weight: 1, arbitrary: hostileBody },
    )
  }
  const asJson = (arbitrary: fc.Arbitrary<FuzzValue>) => fc.record({ payload: arbitrary.map(toJsonText), contentType })
  return fc.oneof(
    { weight: 3, arbitrary: asJson(values.valid(operation.body)) },
    { weight: 5, arbitrary: asJson(values.mutatedOnce(operation.body)) },
    { weight: 2, arbitrary: asJson(values.mutatedObject(operation.body)) },
    { weight: 1, arbitrary: asJson(hostileValue) },
    { weight: 2, arbitrary: hostileBody },
  )
}

/** A value as query or path text: strings as they are, anything else as its JSON text. */
function textOf(value: FuzzValue): string {
  if (typeof value === 'string') return value
  if (value instanceof RawJson) return value.text
  return toJsonText(value)
}

/** Percent-encoding that also writes lone surrogates (as the invalid UTF-8 of their code unit), which encodeURIComponent refuses. */
export function percentEncode(text: string): string {
  if (text.isWellFormed()) return encodeURIComponent(text)
  let encoded = ''
  for (const char of text) {
    const code = char.charCodeAt(0)
    if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      encoded += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('')
    } else {
      encoded += encodeURIComponent(char)
    }
  }
  return encoded
}
