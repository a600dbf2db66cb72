// The one ingestion path. HTTP routes, the MQTT subscriber and the simulator all end in ingest(), which
// answers with an outcome (stored, unknownAnimal, invalid) that each caller turns into its own reply: a
// 200/404/400 for HTTP, a log line and a counter for MQTT. Payloads that did not pass the HTTP body
// validation (MQTT) are checked by createPayloadValidator against the same schema first.
import { Ajv } from 'ajv'
import type { Kysely } from 'kysely'
import type { Limits } from '../../config.ts'
import type { DB } from '../../db/schema.ts'
import type { FieldProblem } from '../../http/errors.ts'
import { validationDetails, type AjvIssue } from '../../http/validation-details.ts'
import { isMac, normalizeMac } from '../animals/animals.rules.ts'
import { firstFutureRow, FUTURE_SKEW_MS } from './readings.rules.ts'
import { LocationIngestBody, SensorIngestBody, type LocationRow, type SensorRow } from './readings.schemas.ts'
import { storeReadings, type IngestCounts, type ReadingKind } from './readings.repository.ts'

export type IngestBatch =
  | { kind: 'sensordata'; rows: readonly SensorRow[] }
  | { kind: 'locations'; rows: readonly LocationRow[] }

export type IngestOutcome =
  | { outcome: 'stored'; counts: IngestCounts }
  | { outcome: 'unknownAnimal' }
  | { outcome: 'invalid'; details: FieldProblem[] }

/** Stores a validated batch for the tag `mac` of user `uid`: all rows or none. */
export async function ingest(db: Kysely<DB>, uid: string, mac: string, batch: IngestBatch, now: number): Promise<IngestOutcome> {
  const future = firstFutureRow(batch.rows, now)
  if (future >= 0) {
    return { outcome: 'invalid', details: [{ field: `readings[${future}].t`, message: `is more than ${FUTURE_SKEW_MS / 60_000} minutes in the future` }] }
  }
  if (!isMac(mac)) return { outcome: 'unknownAnimal' }
  const counts = await storeReadings(db, uid, normalizeMac(mac), batch)
  return counts ? { outcome: 'stored', counts } : { outcome: 'unknownAnimal' }
}

export type PayloadCheck =
  | { ok: true; batch: IngestBatch }
  | { ok: false; details: FieldProblem[] }

/** Validates a parsed payload exactly as the HTTP body is validated (strict types, row bounds, every row). */
export function createPayloadValidator(limits: Limits): (kind: ReadingKind, payload: unknown) => PayloadCheck {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false })
  const validators = {
    sensordata: ajv.compile<{ readings: SensorRow[] }>(SensorIngestBody(limits)),
    locations: ajv.compile<{ readings: LocationRow[] }>(LocationIngestBody(limits)),
  }
  return (kind, payload) => {
    if (kind === 'sensordata' && validators.sensordata(payload)) return { ok: true, batch: { kind, rows: payload.readings } }
    if (kind === 'locations' && validators.locations(payload)) return { ok: true, batch: { kind, rows: payload.readings } }
    return { ok: false, details: validationDetails((validators[kind].errors ?? []) as AjvIssue[], 'body') }
  }
}
