// Table types for Kysely. Every table carries the owning user's Uid (the tenant key), so a
// Citus-style sharded PostgreSQL can distribute all of a farm's rows by it.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DB {}
