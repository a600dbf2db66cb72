// Prediction alarms: a heat, birth or lameness probability that crosses the account's threshold raises one
// event per episode (rising edge); the alarm clears once the probability falls below threshold − hysteresis,
// and is not raised again within the cooldown after clearing (events.rules.ts, alarmStep). The predictions
// job calls this with each run's scores, oldest first.
import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { SERVICE_ACTOR } from './actors.rules.ts'
import type { AlertRules } from './alert-rules.rules.ts'
import type { EventType } from './event-kinds.ts'
import { emitEvent, resolveOpenEvents, subjectStates, transition, type EventRow } from './events.repository.ts'
import { alarmStep, type AlarmState } from './events.rules.ts'

export type AlarmClass = 'heat' | 'birth' | 'lameness'

export interface Score {
  animalId: number
  mac: string
  group: string | null
  classificationType: AlarmClass
  /** ms since epoch */
  predictedAt: number
  probability: number
}

const ALARM: Record<AlarmClass, { type: EventType; threshold: keyof AlertRules['thresholds'] }> = {
  heat: { type: 'heat-alarm', threshold: 'heatProbability' },
  birth: { type: 'birth-alarm', threshold: 'birthProbability' },
  lameness: { type: 'lameness-alarm', threshold: 'lamenessProbability' },
}

/** The events an alarm raises: each names the prediction that raised it (evidence.predictionId). */
export const ALARM_EVENT_TYPES: readonly EventType[] = Object.values(ALARM).map((a) => a.type)

/** Raises and clears the alarms of a run's scores; returns the events raised. */
export async function derivePredictionEvents(
  db: Kysely<DB>,
  uid: string,
  rules: AlertRules,
  scores: readonly Score[],
  now: number,
): Promise<EventRow[]> {
  const stored = await subjectStates(db, uid, 'alarm')
  const states = new Map<string, AlarmState>()
  for (const [subject, s] of stored) states.set(subject, { on: s.state === 'on', since: s.since })
  const ordered = [...scores].sort((a, b) => a.predictedAt - b.predictedAt)
  const created: EventRow[] = []
  for (const score of ordered) {
    const alarm = ALARM[score.classificationType]
    const subject = `animal:${score.animalId}:${score.classificationType}`
    const state = states.get(subject)
    // A score from before the alarm's last change was seen by an earlier run.
    if (state && score.predictedAt <= state.since) continue
    const rule = {
      threshold: rules.thresholds[alarm.threshold],
      hysteresis: rules.thresholds.probabilityHysteresis,
      cooldownMs: rules.thresholds.alarmCooldownHours * 3_600_000,
    }
    const step = alarmStep(score.probability, state, rule, score.predictedAt)
    if (step === 'none') continue
    const expected = state === undefined ? undefined : state.on ? 'on' : 'off'
    const next = step === 'raise' ? 'on' : 'off'
    const event = await db.transaction().execute(async (trx) => {
      if (!(await transition(trx, { uid, subject: subject, rule: 'alarm' }, expected, next, score.predictedAt)))
        return undefined
      if (step === 'clear') {
        await resolveOpenEvents(
          trx,
          uid,
          { animalId: score.animalId, mac: score.mac },
          [alarm.type],
          SERVICE_ACTOR,
          now,
        )
        return undefined
      }
      const prediction = await trx
        .selectFrom('predictions')
        .select('id')
        .where('uid', '=', uid)
        .where('animal_id', '=', score.animalId)
        .where('classification_type', '=', score.classificationType)
        .where('predicted_at', '=', score.predictedAt)
        .orderBy('id', 'desc')
        .executeTakeFirst()
      return emitEvent(trx, rules, {
        uid,
        type: alarm.type,
        mac: score.mac,
        animalId: score.animalId,
        group: score.group,
        value: Math.round(score.probability * 1000) / 1000,
        t: score.predictedAt,
        evidence: {
          probability: score.probability,
          threshold: rule.threshold,
          classificationType: score.classificationType,
          predictionId: prediction ? String(prediction.id) : null,
          predictedAt: new Date(score.predictedAt).toISOString(),
        },
        episodeKey: `${alarm.type}:animal:${score.animalId}:${score.predictedAt}`,
        createdAt: now,
      })
    })
    states.set(subject, { on: next === 'on', since: score.predictedAt })
    if (event) created.push(event)
  }
  return created
}
