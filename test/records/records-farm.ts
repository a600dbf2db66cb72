// A farm for the record tests: an owner with a user token, animals, and a valid create body for every
// record collection at each level it is created at.
import assert from 'node:assert/strict'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createUser, userToken } from '../support/fixtures.ts'

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'
export type Body = Record<string, unknown>
export type Headers = Record<string, string>
export interface Res {
  statusCode: number
  body: string
  headers: Record<string, unknown>
  json: () => any
}

/** The collections at /users/<user_id>/<segment>, and the field naming the animal in each. */
export const USER_LEVEL = ['treatments', 'births', 'inseminations'] as const
export type UserSegment = (typeof USER_LEVEL)[number]

/** The collections at /users/<user_id>/animals/<animal_mac>/<segment>. */
export const ANIMAL_LEVEL = [
  'births',
  'inseminations',
  'general-events',
  'pregnancy-checks',
  'return-to-estrus',
  'weanings',
  'movements',
] as const
export type AnimalSegment = (typeof ANIMAL_LEVEL)[number]

/** Treatments name the animal `Mac`, every other collection `MAC`. */
export const macField = (segment: string) => (segment === 'treatments' ? 'Mac' : 'MAC')

/** The body without one of its fields. */
export const without = (body: Body, field: string) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => k !== field))

let macCounter = 0
/** A MAC unique within the test file, upper case as stored. */
export function nextMac(): string {
  macCounter++
  return `AA:BB:CC:${(macCounter >> 8).toString(16).padStart(2, '0')}:${(macCounter & 255).toString(16).padStart(2, '0')}:01`.toUpperCase()
}

/** A complete user-level create body: every field the spec requires, with valid values. */
export const userBodies: Record<UserSegment, (mac: string, uid: string) => Body> = {
  treatments: (mac) => ({
    Mac: mac,
    Medicine: 'Amoxicillin',
    Diagnose: 'Respiratory infection',
    CustomName: 'Dr. Hansen',
    Comment: 'First course',
    TreatmentAmount: 3,
    TreatmentCount: 1,
    TreatmentInterval: 24,
    StartDate: '2026-03-01',
    StartDateSeconds: 1772323200,
    Archived: false,
    PhoneHistory: [],
  }),
  births: (mac, uid) => ({
    MAC: mac,
    Living: 12,
    Dead: 1,
    StartDate: '2026-03-01',
    StartTime: '06:40',
    Comment: 'Calm farrowing',
    Archived: false,
    Uid: uid,
  }),
  inseminations: (mac, uid) => ({
    MAC: mac,
    Boar: 'Duroc DK-4471',
    GeneticLine: 'Landrace x Yorkshire',
    Tubes: 2,
    StartDate: '2026-03-01',
    StartTime: '07:15',
    Archived: false,
    Occupied: true,
    Uid: uid,
  }),
}

/** The smallest valid animal-level create body of each collection (the MAC comes from the path). */
export const animalBodies: Record<AnimalSegment, Body> = {
  births: { Living: 12, Dead: 1, StartDate: '2026-03-01' },
  inseminations: { Boar: 'Duroc DK-4471', StartDate: '2026-03-01' },
  'general-events': { Diagnose: 'Lameness', Description: 'Lame on the left hind leg' },
  'pregnancy-checks': { checkDate: '2026-04-01', result: 'pregnant' },
  'return-to-estrus': { returnDate: '2026-03-22', returnType: 'regular', daysSinceService: 21 },
  weanings: { weaningDate: '2026-04-20', countWeaned: 11 },
  movements: { movementDate: '2026-02-20', fromStage: 'gestation', toStage: 'farrowing' },
}

/** An owner, a user token, and helpers for requests under /api/v1/users/<uid>. */
export async function recordsFarm(ctx: TestContext) {
  const user = await createUser(ctx)
  const headers = bearer((await userToken(ctx, user.email)).accessToken)
  const base = `/api/v1/users/${user.uid}`
  const call = (method: Method, path: string, payload?: unknown, as: Headers = headers): Promise<Res> =>
    ctx.app.inject({
      method,
      url: `${base}${path}`,
      headers: as,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    })
  /** Registers an animal; returns it as stored. */
  const animal = async (mac = nextMac()) => {
    const res = await call('POST', '/animals', { MAC: mac, Sex: 'female' })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as { ID: string; MAC: string }
  }
  /** A create that must succeed; returns the stored record. */
  const create = async (path: string, body: Body, as: Headers = headers) => {
    const res = await call('POST', path, body, as)
    assert.equal(res.statusCode, 201, `POST ${path}: ${res.body}`)
    return res.json().data
  }
  /** A read that must succeed; returns the whole envelope. */
  const get = async (path: string, as: Headers = headers) => {
    const res = await call('GET', path, undefined, as)
    assert.equal(res.statusCode, 200, `GET ${path}: ${res.body}`)
    return res.json()
  }
  return { user, headers, base, call, animal, create, get }
}

export type RecordsFarm = Awaited<ReturnType<typeof recordsFarm>>

/** The IDs of a list or array response, in order. */
export function idsOf(envelope: { data: { ID: string }[] }): string[] {
  return envelope.data.map((r) => r.ID)
}

/** A create test file's app and farm: two of the farm's animals, and an animal of another farm. */
export async function createFileFixture() {
  const ctx = await createTestApp()
  const f = await recordsFarm(ctx)
  const mac = (await f.animal()).MAC
  const otherMac = (await f.animal()).MAC
  const strangerMac = (await (await recordsFarm(ctx)).animal()).MAC
  return { ctx, f, mac, otherMac, strangerMac }
}
