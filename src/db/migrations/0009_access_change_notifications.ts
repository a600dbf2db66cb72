// Every change that alters who may call the API notifies channel `livestock_access` in the transaction
// that makes it, so the caller cache of every API process (auth/caller-cache.ts) drops what it held before
// the change commits for others. Triggers rather than application code: no write path, CLI command or
// manual SQL can forget to publish. Payloads are JSON: {"integrator": uid}, {"user": uid}, {"jti": jti},
// {"user": uid, "integrator": uid} for a link.
import { sql, type Kysely } from 'kysely'

export const ACCESS_CHANGES_CHANNEL = 'livestock_access'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION notify_integrator_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('livestock_access', json_build_object('integrator', OLD.uid)::text);
      RETURN NULL;
    END $$`.execute(db)
  await sql`
    CREATE FUNCTION notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('livestock_access', json_build_object('user', OLD.uid)::text);
      RETURN NULL;
    END $$`.execute(db)
  await sql`
    CREATE FUNCTION notify_link_change() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE link user_integrator_links;
    BEGIN
      IF TG_OP = 'DELETE' THEN link := OLD; ELSE link := NEW; END IF;
      PERFORM pg_notify('livestock_access', json_build_object('user', link.uid, 'integrator', link.integrator_uid)::text);
      RETURN NULL;
    END $$`.execute(db)
  await sql`
    CREATE FUNCTION notify_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('livestock_access', json_build_object('jti', NEW.jti)::text);
      RETURN NULL;
    END $$`.execute(db)
  await sql`CREATE TRIGGER integrators_access_change AFTER UPDATE OR DELETE ON integrators FOR EACH ROW EXECUTE FUNCTION notify_integrator_change()`.execute(
    db,
  )
  await sql`CREATE TRIGGER users_access_change AFTER UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_user_change()`.execute(
    db,
  )
  await sql`CREATE TRIGGER links_access_change AFTER INSERT OR DELETE ON user_integrator_links FOR EACH ROW EXECUTE FUNCTION notify_link_change()`.execute(
    db,
  )
  await sql`CREATE TRIGGER revoked_tokens_access_change AFTER INSERT ON revoked_tokens FOR EACH ROW EXECUTE FUNCTION notify_token_revoked()`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS integrators_access_change ON integrators`.execute(db)
  await sql`DROP TRIGGER IF EXISTS users_access_change ON users`.execute(db)
  await sql`DROP TRIGGER IF EXISTS links_access_change ON user_integrator_links`.execute(db)
  await sql`DROP TRIGGER IF EXISTS revoked_tokens_access_change ON revoked_tokens`.execute(db)
  for (const fn of ['notify_integrator_change', 'notify_user_change', 'notify_link_change', 'notify_token_revoked']) {
    await sql`DROP FUNCTION IF EXISTS ${sql.raw(fn)}()`.execute(db)
  }
}
