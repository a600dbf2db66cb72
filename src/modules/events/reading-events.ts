// Events derived as readings arrive, inside the ingestion transaction (after the animal's or device's
// latest state was brought up to the batch): the temperature band of an animal with a reference, an ear tag
// heard again after it fell silent, a litter device back online. One query reads what they need; a state
// changes only when a rule says so, and only one of several concurrent ingestions makes the change.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { withDefaults, type AlertRulesInput } from './alert-rules.rules.ts'
import { emitEvent, transition, type EventRow } from './events.repository.ts'
import { minutesBetween, nextBand, type Band } from './events.rules.ts'

export type ReadingSeries = 'sensordata' | 'locations' | 'devicedata'

/** The events a stored batch of `series` for the tag or device `mac` gives rise to (stored, not yet announced). */
export async function deriveFromReadings(
  trx: Kysely<DB>,
  uid: string,
  mac: string,
  series: ReadingSeries,
  now: number,
): Promise<EventRow[]> {
  if (series === 'sensordata') return deriveTagEvents(trx, uid, mac, now)
  if (series === 'devicedata') return deriveDeviceEvents(trx, uid, mac, now)
  return []
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits

async function deriveTagEvents(trx: Kysely<DB>, uid: string, mac: string, now: number): Promise<EventRow[]> {
  const { rows } = await sql<{
    id: number
    group_name: string | null
    current_temperature: number | null
    reference_temperature: number | null
    last_sensor_t: number | null
    band: string | null
    silence: string | null
    silent_since: number | null
    rules: AlertRulesInput | null
  }>`
    SELECT a.id, a.group_name, a.current_temperature, a.reference_temperature, a.last_sensor_t,
           b.state AS band, s.state AS silence, s.since AS silent_since, r.rules
    FROM animals a
    LEFT JOIN alert_states b ON b.uid = a.uid AND b.subject = 'animal:' || a.id AND b.rule = 'temperature'
    LEFT JOIN alert_states s ON s.uid = a.uid AND s.subject = 'animal:' || a.id AND s.rule = 'silence'
    LEFT JOIN alert_rules r ON r.uid = a.uid
    WHERE a.uid = ${uid} AND a.mac = ${mac}`.execute(trx)
  const a = rows[0]
  if (!a || a.last_sensor_t === null) return []
  const animalId = Number(a.id)
  const subject = `animal:${animalId}`
  const lastHeard = Number(a.last_sensor_t)
  const rules = withDefaults(a.rules ?? undefined)
  const created: EventRow[] = []
  const base = { uid, mac, animalId, group: a.group_name, createdAt: now }

  if (a.silence === 'silent' && a.silent_since !== null && lastHeard > Number(a.silent_since)) {
    const since = Number(a.silent_since)
    if (await transition(trx, { uid, subject, rule: 'silence' }, 'silent', 'heard', lastHeard)) {
      const event = await emitEvent(trx, rules, {
        ...base,
        type: 'tag-heard',
        value: minutesBetween(since, lastHeard),
        t: lastHeard,
        evidence: { lastHeardBefore: since, heardAt: lastHeard, silentMinutes: minutesBetween(since, lastHeard) },
        episodeKey: `tag-heard:${subject}:${since}`,
      })
      if (event) created.push(event)
    }
  }

  if (a.current_temperature !== null && a.reference_temperature !== null) {
    const current = Number(a.current_temperature)
    const reference = Number(a.reference_temperature)
    const delta = current - reference
    const { temperatureYellowDelta: yellow, temperatureRedDelta: red } = rules.thresholds
    const band = (a.band ?? 'green') as Band
    const next = nextBand(delta, band, yellow, red)
    if (
      next !== band &&
      (await transition(trx, { uid, subject, rule: 'temperature' }, a.band ?? undefined, next, lastHeard))
    ) {
      const event = await emitEvent(trx, rules, {
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

async function deriveDeviceEvents(trx: Kysely<DB>, uid: string, mac: string, now: number): Promise<EventRow[]> {
  const { rows } = await sql<{
    last_seen: number | null
    state: string | null
    since: number | null
    rules: AlertRulesInput | null
  }>`
    SELECT d.last_seen, s.state, s.since, r.rules
    FROM litterguards d
    LEFT JOIN alert_states s ON s.uid = d.uid AND s.subject = 'device:' || d.mac AND s.rule = 'offline'
    LEFT JOIN alert_rules r ON r.uid = d.uid
    WHERE d.uid = ${uid} AND d.mac = ${mac}`.execute(trx)
  const d = rows[0]
  if (!d || d.last_seen === null || d.state !== 'offline' || d.since === null) return []
  const lastSeen = Number(d.last_seen) * 1000
  const since = Number(d.since)
  if (lastSeen <= since) return []
  const subject = `device:${mac}`
  if (!(await transition(trx, { uid, subject, rule: 'offline' }, 'offline', 'online', lastSeen))) return []
  const event = await emitEvent(trx, withDefaults(d.rules ?? undefined), {
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
