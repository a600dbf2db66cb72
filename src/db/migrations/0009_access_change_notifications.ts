// Every change that alters who may call the API notifies channel `livestock_access` in the transaction
// that makes it, so the caller cache of every API process (auth/caller-cache.ts) drops what it held before
// the change commits for others. Triggers rather than application code: no write path, CLI command or
// manual SQL can forget to publish. Payloads are JSON: {"integrator": uid}, {"user": uid}, {"jti": jti},
// {"user": uid, "integrator": uid} for a link.
import { sql, type Kysely, type RawBuilder } from 'kysely'

export const ACCESS_CHANGES_CHANNEL = 'livestock_access'

/** A change that alters who may call the API: its trigger and table, and the function publishing it. */
interface AccessChange {
  trigger: string
  after: string
  table: string
  fn: string
  /** json_build_object's arguments: what the payload names. */
  payload: string
  /** Set where the trigger fires on inserts and deletes alike: the variable holding the row (NEW, or OLD on a delete). */
  row?: string
}

const ACCESS_CHANGES: AccessChange[] = [
  {
    trigger: 'integrators_access_change',
    after: 'UPDATE OR DELETE',
    table: 'integrators',
    fn: 'notify_integrator_change',
    payload: "'integrator', OLD.uid",
  },
  {
    trigger: 'users_access_change',
    after: 'UPDATE OR DELETE',
    table: 'users',
    fn: 'notify_user_change',
    payload: "'user', OLD.uid",
  },
  {
    trigger: 'links_access_change',
    after: 'INSERT OR DELETE',
    table: 'user_integrator_links',
    fn: 'notify_link_change',
    payload: "'user', link.uid, 'integrator', link.integrator_uid",
    row: 'link',
  },
  {
    trigger: 'revoked_tokens_access_change',
    after: 'INSERT',
    table: 'revoked_tokens',
    fn: 'notify_token_revoked',
    payload: "'jti', NEW.jti",
  },
]

function notifyFunction({ fn, table, payload, row }: AccessChange): RawBuilder<unknown> {
  const declare = row === undefined ? '' : `\n    DECLARE ${row} ${table};`
  const pick = row === undefined ? '' : `\n      IF TG_OP = 'DELETE' THEN ${row} := OLD; ELSE ${row} := NEW; END IF;`
  return sql.raw(`
    CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$${declare}
    BEGIN${pick}
      PERFORM pg_notify('${ACCESS_CHANGES_CHANNEL}', json_build_object(${payload})::text);
      RETURN NULL;
    END $$`)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const change of ACCESS_CHANGES) await notifyFunction(change).execute(db)
  for (const { trigger, after, table, fn } of ACCESS_CHANGES) {
    await sql`CREATE TRIGGER ${sql.raw(trigger)} AFTER ${sql.raw(after)} ON ${sql.raw(table)} FOR EACH ROW EXECUTE FUNCTION ${sql.raw(fn)}()`.execute(
      db,
    )
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { trigger, table } of ACCESS_CHANGES)
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(trigger)} ON ${sql.raw(table)}`.execute(db)
  for (const { fn } of ACCESS_CHANGES) await sql`DROP FUNCTION IF EXISTS ${sql.raw(fn)}()`.execute(db)
}
