// The one ingestion path. HTTP routes, the MQTT subscriber and the simulator all end in ingest(), for
// every series (ear-tag sensor readings and locations, litter-device readings), which answers with an
// outcome (stored, unknownMac, invalid) that each caller turns into its own reply: a 200/404/400 for
// HTTP, a log line and a counter for MQTT. Payloads that did not pass the HTTP body validation (MQTT)
// are checked by createPayloadValidator against the same schema first.
import { Ajv, type ValidateFunction } from 'ajv'
import type { Kysely } from 'kysely'
import type { Limits } from '../../config.ts'
import type { DB } from '../../db/schema.ts'
import { notFound, validationFailed, type FieldProblem } from '../../http/errors.ts'
import { validationDetails, type AjvIssue } from '../../http/validation-details.ts'
import { unstorableValue } from '../../http/storable.ts'
import { isMac, normalizeMac } from '../animals/animals.rules.ts'
import type { EventHub } from '../events/event-hub.ts'
import type { EventRow } from '../events/events.repository.ts'
import { readingDerivation } from '../events/reading-events.ts'
import { currentStateUntil, retainedFrom, firstFutureRow, FUTURE_SKEW_MS } from './readings.rules.ts'
import { DeviceIngestBody, LocationIngestBody, SensorIngestBody } from './readings.schemas.ts'
import { storeReadings, type IngestBatch, type IngestCounts } from './readings.repository.ts'
import { SERIES, type ReadingKind } from './readings.series.ts'
import type { App } from '../../types.ts'

export type { IngestBatch } from './readings.repository.ts'
export type { ReadingKind } from './readings.series.ts'

export type IngestOutcome =
  | { outcome: 'stored'; counts: IngestCounts }
  /** The user has no animal (no device, for devicedata) with this MAC. */
  | { outcome: 'unknownMac' }
  | { outcome: 'invalid'; details: FieldProblem[] }

/**
 * Stores a validated batch for the tag or device `mac` of user `uid`: all rows or none. With an event hub that
 * derives, the events the new rows give rise to are stored in the same transaction and announced after it.
 * With a readings retention (days; 0: every reading), rows older than its first kept hour are not stored.
 */
export async function ingest(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  batch: IngestBatch,
  now: number,
  events?: EventHub,
  retentionDays = 0,
): Promise<IngestOutcome> {
  const { msPerT } = SERIES[batch.kind]
  const future = firstFutureRow(batch.rows, now, msPerT)
  if (future >= 0) {
    return {
      outcome: 'invalid',
      details: [
        { field: `readings[${future}].t`, message: `is more than ${FUTURE_SKEW_MS / 60_000} minutes in the future` },
      ],
    }
  }
  if (!isMac(mac)) return { outcome: 'unknownMac' }
  const tag = normalizeMac(mac)
  const keptFrom = retentionDays > 0 ? retainedFrom(msPerT, now, retentionDays) : undefined
  const created: EventRow[] = []
  const derive = events?.derive ? readingDerivation(uid, tag, batch.kind, now, created) : undefined
  const counts = await storeReadings(db, uid, tag, batch, currentStateUntil(now, msPerT), keptFrom, derive)
  events?.announce(created)
  return counts ? { outcome: 'stored', counts } : { outcome: 'unknownMac' }
}

/**
 * An ingestion over HTTP: the batch stored with the app's clock, events and retention, counted in the metrics.
 * Answers the counts, or throws the 404 (`unknown` is what the MAC names) or 400 that the outcome stands for.
 */
export async function ingestOverHttp(
  app: App,
  uid: string,
  mac: string,
  batch: IngestBatch,
  unknown: 'Animal' | 'Litterguard',
): Promise<IngestCounts> {
  const db = app.database.db
  const result = await ingest(db, uid, mac, batch, app.clock(), app.events, app.config.retention.readingsDays)
  if (result.outcome === 'unknownMac') throw notFound(unknown)
  if (result.outcome === 'invalid') throw validationFailed(result.details)
  app.countIngested('http', batch.kind, result.counts.stored)
  return result.counts
}

export type PayloadCheck = { ok: true; batch: IngestBatch } | { ok: false; details: FieldProblem[] }

/** Validates a parsed payload exactly as the HTTP body is validated (strict types, row bounds, every row). */
export function createPayloadValidator(limits: Limits): (kind: ReadingKind, payload: unknown) => PayloadCheck {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false })
  const validators: Record<ReadingKind, ValidateFunction<{ readings: unknown[] }>> = {
    sensordata: ajv.compile(SensorIngestBody(limits)),
    locations: ajv.compile(LocationIngestBody(limits)),
    devicedata: ajv.compile(DeviceIngestBody(limits)),
  }
  return (kind, payload) => {
    const validate = validators[kind]
    // The schema of `kind` has checked every row, so they are that kind's rows.
    if (!validate(payload))
      return { ok: false, details: validationDetails((validate.errors ?? []) as AjvIssue[], 'body') }
    // What HTTP bodies are refused for after their schema (a NUL, a lone surrogate), MQTT payloads are too.
    const problem = unstorableValue(payload, '')
    if (problem) {
      const issue = { instancePath: problem.path, keyword: 'storable', message: problem.message, params: {} }
      return { ok: false, details: validationDetails([issue], 'body') }
    }
    return { ok: true, batch: { kind, rows: payload.readings } as IngestBatch }
  }
}
