// The one ingestion path. HTTP routes, the MQTT subscriber and the simulator all end in ingest();
// payloads that did not pass the HTTP body validation (MQTT, simulator) are checked here against the
// same schema first.
import { Ajv } from 'ajv'
import type { Kysely } from 'kysely'
import type { FastifyError } from 'fastify'
import type { Limits } from '../../config.ts'
import type { DB } from '../../db/schema.ts'
import { notFound, validationFailed, type FieldProblem } from '../../http/errors.ts'
import { toErrorResponse } from '../../plugins/errors.ts'
import { normalizeMac } from '../animals/animals.rules.ts'
import { firstFutureRow, FUTURE_SKEW_MS } from './readings.rules.ts'
import { LocationIngestBody, SensorIngestBody, type LocationRow, type SensorRow } from './readings.schemas.ts'
import { storeReadings, type IngestCounts, type ReadingKind } from './readings.repository.ts'

export type IngestBatch =
  | { kind: 'sensordata'; rows: readonly SensorRow[] }
  | { kind: 'locations'; rows: readonly LocationRow[] }

/**
 * Stores a validated batch for the tag `mac` of user `uid`. Throws a 400 (future-stamped row, with its
 * index) or a 404 (no such animal); stores all rows or none.
 */
export async function ingest(db: Kysely<DB>, uid: string, mac: string, batch: IngestBatch, now: number): Promise<IngestCounts> {
  const future = firstFutureRow(batch.rows, now)
  if (future >= 0) {
    throw validationFailed([{ field: `readings[${future}].t`, message: `is more than ${FUTURE_SKEW_MS / 60_000} minutes in the future` }])
  }
  const counts = await storeReadings(db, uid, normalizeMac(mac), batch)
  if (!counts) throw notFound('Animal')
  return counts
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
    const validate = validators[kind]
    const response = toErrorResponse({ validation: validate.errors ?? [], validationContext: 'body' } as unknown as FastifyError)
    return { ok: false, details: response.details ?? [] }
  }
}
