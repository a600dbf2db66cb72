// Events derived as readings arrive, in the ingestion transaction: the temperature band of an animal with a
// reference, an ear tag heard again after it fell silent, a litter device back online. What they need is read by
// the statement that moves the animal's or device's latest state to the batch (a query over that UPDATE, so no
// statement of its own, and nothing at all when the batch moved no latest state); a state changes only when a
// rule says so, and only one of several concurrent ingestions makes the change: the change and its event are one
// statement (transitionWithEvent), the transaction's last, so that the account's event counter is held for as
// short a time as can be (docs/events.md#cost).
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { withDefaults, type AlertRulesInput } from './alert-rules.rules.ts'
import { transitionWithEvent, type EventRow } from './events.repository.ts'
import { isLiveReading, minutesBetween, nextBand, type Band } from './events.rules.ts'

export type ReadingSeries = 'sensordata' | 'locations' | 'devicedata'

/**
 * What the ingestion transaction runs for events: `select` wraps the UPDATE of the owner's latest state (a query
 * over what it changed), `then` derives from its rows in the same transaction. The shape storeReadings takes.
 */
export interface LatestStateHook {
  select: (update: RawBuilder<unknown>) => RawBuilder<Record<string, unknown>>
  then: (trx: Kysely<DB>, rows: Record<string, unknown>[]) => Promise<void>
}

/**
 * The derivation of a batch of `series` for the tag or device `mac`, as a hook of the ingestion transaction;
 * the events it stores are pushed to `created` (announce them after the commit). Undefined: the series derives none.
 */
export function readingDerivation(
  uid: string,
  mac: string,
  series: ReadingSeries,
  now: number,
  created: EventRow[],
): LatestStateHook | undefined {
  if (series === 'sensordata')
    return {
      select: (update) => tagStateSql(uid, sql`${update} RETURNING ${TAG_COLUMNS}`),
      then: async (trx, rows) => {
        if (rows[0]) created.push(...(await deriveTagEvents(trx, uid, mac, now, rows[0] as unknown as TagState)))
      },
    }
  if (series === 'devicedata')
    return {
      select: (update) => deviceStateSql(uid, mac, sql`${update} RETURNING d.last_seen`),
      then: async (trx, rows) => {
        if (rows[0]) created.push(...(await deriveDeviceEvents(trx, uid, mac, now, rows[0] as unknown as DeviceState)))
      },
    }
  return undefined
}

/**
 * The events the tag's or device's latest state as stored gives rise to, as if a batch had just moved it (the
 * simulator, after it set the herd's references). Stored, not yet announced.
 */
export async function deriveFromReadings(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  series: ReadingSeries,
  now: number,
): Promise<EventRow[]> {
  const created: EventRow[] = []
  const current =
    series === 'sensordata'
      ? tagStateSql(uid, sql`SELECT ${TAG_COLUMNS} FROM animals a WHERE a.uid = ${uid} AND a.mac = ${mac}`)
      : deviceStateSql(uid, mac, sql`SELECT d.last_seen FROM litterguards d WHERE d.uid = ${uid} AND d.mac = ${mac}`)
  await db.transaction().execute(async (trx) => {
    const hook = readingDerivation(uid, mac, series, now, created)
    if (hook) await hook.then(trx, (await current.execute(trx)).rows)
  })
  return created
}

const TAG_COLUMNS = sql`a.id, a.group_name, a.current_temperature, a.reference_temperature, a.last_sensor_t`

/** An animal's latest state (`latest`: a statement answering TAG_COLUMNS) with its band and silence states and rules. */
const tagStateSql = (uid: string, latest: RawBuilder<unknown>) => sql<Record<string, unknown>>`
  WITH latest AS (${latest})
  SELECT latest.*, b.state AS band, s.state AS silence, s.since AS silent_since, r.rules
  FROM latest
  LEFT JOIN alert_states b ON b.uid = ${uid} AND b.subject = 'animal:' || latest.id AND b.rule = 'temperature'
  LEFT JOIN alert_states s ON s.uid = ${uid} AND s.subject = 'animal:' || latest.id AND s.rule = 'silence'
  LEFT JOIN alert_rules r ON r.uid = ${uid}`

/** A litter device's latest reading (`latest`: a statement answering last_seen) with its offline state and rules. */
const deviceStateSql = (uid: string, mac: string, latest: RawBuilder<unknown>) => sql<Record<string, unknown>>`
  WITH latest AS (${latest})
  SELECT latest.last_seen, s.state, s.since, r.rules
  FROM latest
  LEFT JOIN alert_states s ON s.uid = ${uid} AND s.subject = ${`device:${mac}`} AND s.rule = 'offline'
  LEFT JOIN alert_rules r ON r.uid = ${uid}`

interface TagState {
  id: number
  group_name: string | null
  current_temperature: number | null
  reference_temperature: number | null
  last_sensor_t: number | null
  band: string | null
  silence: string | null
  silent_since: number | null
  rules: AlertRulesInput | null
}

interface DeviceState {
  last_seen: number | null
  state: string | null
  since: number | null
  rules: AlertRulesInput | null
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits

async function deriveTagEvents(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  now: number,
  a: TagState,
): Promise<EventRow[]> {
  if (a.last_sensor_t === null) return []
  const lastHeard = Number(a.last_sensor_t)
  if (!isLiveReading(lastHeard, now)) return []
  const animalId = Number(a.id)
  const subject = `animal:${animalId}`
  const rules = withDefaults(a.rules ?? undefined)
  const created: EventRow[] = []
  const base = { uid, mac, animalId, group: a.group_name, createdAt: now }

  if (a.silence === 'silent' && a.silent_since !== null && lastHeard > Number(a.silent_since)) {
    const since = Number(a.silent_since)
    const event = await transitionWithEvent(
      db,
      rules,
      { uid, subject, rule: 'silence' },
      'silent',
      'heard',
      lastHeard,
      {
        ...base,
        type: 'tag-heard',
        value: minutesBetween(since, lastHeard),
        t: lastHeard,
        evidence: { lastHeardBefore: since, heardAt: lastHeard, silentMinutes: minutesBetween(since, lastHeard) },
        episodeKey: `tag-heard:${subject}:${since}`,
      },
    )
    if (event) created.push(event)
  }

  if (a.current_temperature !== null && a.reference_temperature !== null) {
    const current = Number(a.current_temperature)
    const reference = Number(a.reference_temperature)
    const delta = current - reference
    const { temperatureYellowDelta: yellow, temperatureRedDelta: red } = rules.thresholds
    const band = (a.band ?? 'green') as Band
    const next = nextBand(delta, band, yellow, red)
    if (next !== band) {
      const key = { uid, subject, rule: 'temperature' }
      const event = await transitionWithEvent(db, rules, key, a.band ?? undefined, next, lastHeard, {
        ...base,
        type: next === 'green' ? 'temperature-normal' : `temperature-${next}`,
        value: round(delta),
        t: lastHeard,
        evidence: {
          delta: round(delta, 3),
          currentTemperature: current,
          referenceTemperature: reference,
          band: next,
          previousBand: band,
          thresholds: { yellow, red },
        },
        episodeKey: `temperature-${next}:${subject}:${lastHeard}`,
      })
      if (event) created.push(event)
    }
  }
  return created
}

async function deriveDeviceEvents(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  now: number,
  d: DeviceState,
): Promise<EventRow[]> {
  if (d.last_seen === null || d.state !== 'offline' || d.since === null) return []
  const lastSeen = Number(d.last_seen) * 1000
  const since = Number(d.since)
  if (lastSeen <= since || !isLiveReading(lastSeen, now)) return []
  const subject = `device:${mac}`
  const rules = withDefaults(d.rules ?? undefined)
  const event = await transitionWithEvent(db, rules, { uid, subject, rule: 'offline' }, 'offline', 'online', lastSeen, {
    uid,
    mac,
    type: 'litter-online',
    value: minutesBetween(since, lastSeen),
    t: lastSeen,
    evidence: { lastSeenBefore: since, seenAt: lastSeen, offlineMinutes: minutesBetween(since, lastSeen) },
    episodeKey: `litter-online:${subject}:${since}`,
    createdAt: now,
  })
  return event ? [event] : []
}
