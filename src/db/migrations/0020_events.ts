// Events the service derives (docs/events.md): one row per event, keyed (uid, id) with id the account's own
// creation sequence, which is also the feed's sync cursor. A sequence per account, taken from a counter row
// that the creating transaction holds locked until it commits, numbers an account's events in commit order:
// a reader that saw event n never sees a later commit with a number below n, so `after=<cursor>` misses nothing.
// episode_key names the cause of an event (a band entered at a reading, a service's due farrowing ...):
// unique per account, so two processes deriving the same episode store it once (ON CONFLICT DO NOTHING).
// alert_states holds each subject's current state per rule (band, silent, offline, alarm ...): a transition
// is a conditional upsert, so only one of several concurrent transactions makes it. alert_rules holds each
// account's rules document (absent: the defaults).
import { sql, type Kysely } from 'kysely'
import { ONE_ROW_PER_ACCOUNT, TENANT_KEY } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE event_counters (
      ${ONE_ROW_PER_ACCOUNT},
      last_id bigint NOT NULL
    )`.execute(db)
  await sql`
    CREATE TABLE events (
      ${TENANT_KEY},
      id bigint NOT NULL,
      event_type text NOT NULL,
      severity text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'acknowledged', 'resolved')),
      mac text NOT NULL,
      animal_id bigint,
      group_name text,
      scale text NOT NULL,
      value double precision NOT NULL,
      t bigint NOT NULL,
      evidence jsonb NOT NULL,
      episode_key text NOT NULL,
      created_at bigint NOT NULL,
      acknowledged_by text,
      acknowledged_at bigint,
      resolved_by text,
      resolved_at bigint,
      note text,
      CONSTRAINT events_pkey PRIMARY KEY (uid, id),
      CONSTRAINT events_episode_key UNIQUE (uid, episode_key)
    )`.execute(db)
  await sql`CREATE INDEX events_mac_idx ON events (uid, mac, id)`.execute(db)
  await sql`CREATE INDEX events_animal_idx ON events (uid, animal_id, id) WHERE animal_id IS NOT NULL`.execute(db)
  await sql`CREATE INDEX events_open_idx ON events (uid, event_type, mac) WHERE status <> 'resolved'`.execute(db)
  await sql`
    CREATE TABLE alert_states (
      ${TENANT_KEY},
      subject text NOT NULL,
      rule text NOT NULL,
      state text NOT NULL,
      since bigint NOT NULL,
      CONSTRAINT alert_states_pkey PRIMARY KEY (uid, subject, rule)
    )`.execute(db)
  await sql`
    CREATE TABLE alert_rules (
      ${ONE_ROW_PER_ACCOUNT},
      rules jsonb NOT NULL,
      updated_by text NOT NULL,
      updated_at bigint NOT NULL
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS alert_rules, alert_states, events, event_counters`.execute(db)
}
