// A Kysely that compiles queries as PostgreSQL receives them and runs nothing: for asserting the SQL a builder or a
// migration produces, without a store.
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type KyselyConfig,
} from 'kysely'

export function compileOnlyDb<T>(log?: KyselyConfig['log']): Kysely<T> {
  return new Kysely<T>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    ...(log ? { log } : {}),
  })
}
