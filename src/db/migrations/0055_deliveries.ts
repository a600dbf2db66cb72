// Delivery of events (docs/delivery.md): integrators' webhook subscriptions, and one durable outbox of
// deliveries written in the transaction that creates the event (events.repository.ts recordEvent), so an
// event committed is an event delivered at least once, whatever process dies when. A delivery is keyed by
// the account first (the tenant key), then the event and its target: a webhook subscription, or the
// account's phones ('push'). delivery_attempts is each subscription's log.
import { sql, type Kysely } from 'kysely'
import { TENANT_KEY } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_subscriptions (
      integrator_uid text NOT NULL REFERENCES integrators (uid) ON DELETE CASCADE,
      id text NOT NULL,
      url text NOT NULL,
      event_types jsonb,
      account_uids jsonb,
      secret text NOT NULL,
      previous_secret text,
      previous_secret_until bigint,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      disabled_at bigint,
      failing_since bigint,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      CONSTRAINT webhook_subscriptions_pkey PRIMARY KEY (integrator_uid, id)
    )`.execute(db)
  await sql`
    CREATE TABLE deliveries (
      ${TENANT_KEY},
      event_id bigint NOT NULL,
      channel text NOT NULL CHECK (channel IN ('webhook', 'push')),
      integrator_uid text NOT NULL DEFAULT '',
      subscription_id text NOT NULL DEFAULT '',
      message_id text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      first_attempt_at bigint,
      next_attempt_at bigint NOT NULL,
      locked_until bigint,
      last_status integer,
      last_error text,
      created_at bigint NOT NULL,
      delivered_at bigint,
      CONSTRAINT deliveries_pkey PRIMARY KEY (uid, event_id, channel, integrator_uid, subscription_id)
    )`.execute(db)
  await sql`CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending'`.execute(db)
  await sql`CREATE INDEX deliveries_subscription_idx ON deliveries (integrator_uid, subscription_id, created_at)`.execute(
    db,
  )
  await sql`
    CREATE TABLE delivery_attempts (
      integrator_uid text NOT NULL,
      subscription_id text NOT NULL,
      ${TENANT_KEY},
      event_id bigint NOT NULL,
      message_id text NOT NULL,
      attempted_at bigint NOT NULL,
      status integer,
      error text,
      latency_ms integer NOT NULL
    )`.execute(db)
  await sql`
    CREATE INDEX delivery_attempts_subscription_idx
      ON delivery_attempts (integrator_uid, subscription_id, attempted_at DESC)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE delivery_attempts`.execute(db)
  await sql`DROP TABLE deliveries`.execute(db)
  await sql`DROP TABLE webhook_subscriptions`.execute(db)
}
