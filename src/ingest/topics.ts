// The MQTT topics of the readings, livestock/v1/<user_id>/<registry>/<mac>/<segment> as their HTTP paths:
// what the subscriber listens to and parses, and what the broker's ACL grants (broker.cli.ts).
import { isMac } from '../modules/animals/animals.rules.ts'
import type { ReadingKind } from '../modules/readings/readings.series.ts'
import { isUid } from '../modules/users/users.rules.ts'

export const DEFAULT_SHARE_GROUP = 'livestock-api'
const TOPIC_ROOT = 'livestock/v1'

/** Mosquitto's count of messages it dropped since it started because a client's queue was full. */
export const BROKER_DROPPED_TOPIC = '$SYS/broker/publish/messages/dropped'

/** Where each series is published: livestock/v1/<user_id>/<registry>/<mac>/<segment>, as its HTTP path. */
const TOPICS: Record<ReadingKind, { registry: 'animals' | 'litterguards'; segment: string }> = {
  sensordata: { registry: 'animals', segment: 'sensordata' },
  locations: { registry: 'animals', segment: 'locations' },
  devicedata: { registry: 'litterguards', segment: 'sensordata' },
}

/** Where the service publishes a user's events (`+`: every user's; src/ingest/mqtt-events.ts). */
export function eventsTopic(uid = '+'): string {
  return `${TOPIC_ROOT}/${uid}/events`
}

/** The topics of one user's readings (`+`: every user's), one filter per series. */
export function readingTopics(uid = '+'): string[] {
  return Object.values(TOPICS).map(({ registry, segment }) => `${TOPIC_ROOT}/${uid}/${registry}/+/${segment}`)
}

/** What the service subscribes to: every user's readings, through the shared subscription `group`. */
export function topicFilters(group: string): string[] {
  return readingTopics().map((topic) => `$share/${group}/${topic}`)
}

export function sensorTopic(uid: string, mac: string, kind: ReadingKind): string {
  return `${TOPIC_ROOT}/${uid}/${TOPICS[kind].registry}/${mac}/${TOPICS[kind].segment}`
}

/** The user, tag (or device) and kind a topic addresses, or undefined when it is not one of ours. */
export function parseTopic(topic: string): { uid: string; mac: string; kind: ReadingKind } | undefined {
  const parts = topic.split('/')
  if (parts.length !== 6 || `${parts[0]}/${parts[1]}` !== TOPIC_ROOT) return undefined
  const [, , uid, registry, mac, segment] = parts as [string, string, string, string, string, string]
  const kind = (Object.keys(TOPICS) as ReadingKind[]).find(
    (k) => TOPICS[k].registry === registry && TOPICS[k].segment === segment,
  )
  if (!kind || !isUid(uid) || !isMac(mac)) return undefined
  return { uid, mac, kind }
}
