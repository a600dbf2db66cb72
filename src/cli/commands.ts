// Every operator command, in the order `livestock-api --help` lists them.
import { createDatabaseIfMissing, IN_MEMORY } from '../db/database.ts'
import { migrateToLatest, migrationStatus } from '../db/migrate.ts'
import { brokerCommands } from './broker.cli.ts'
import { jobCommands } from './jobs.cli.ts'
import { simulateCommands } from './simulate.cli.ts'
import { integratorCommands } from './integrators.cli.ts'
import { userCommands } from './users.cli.ts'
import { intOption, type Command } from './command.ts'

const serviceCommands: Command[] = [
  {
    name: 'serve',
    summary: 'Start the HTTP service (same as npm start)',
    usage: 'livestock-api serve [--workers N]',
    options: {
      workers: {
        type: 'string',
        value: 'N',
        description:
          'API processes sharing the port (default WORKERS, 1; 0 = one per core); more than one needs DATABASE_URL',
      },
    },
    help: 'Worker 1 runs the schedules and the MQTT subscriber. Configuration comes from the environment; see the README.',
    run: async (values) => {
      const workers = values.workers === undefined ? undefined : intOption(values, 'workers', 1, 0, 64)
      const { main } = await import('../server.ts')
      await main(workers === undefined ? {} : { WORKERS: String(workers) })
    },
  },
  {
    name: 'migrate',
    summary: 'Apply pending database migrations (or show their status)',
    usage: 'livestock-api migrate [--status]',
    options: {
      status: { type: 'boolean', description: 'list the migrations and when each was applied; apply nothing' },
    },
    help: 'On PostgreSQL, creates the database DATABASE_URL names when the server does not have it yet.',
    run: async (values, _p, ctx) => {
      const { databaseUrl, dbConnectTimeoutMs } = ctx.config()
      const created =
        databaseUrl !== undefined && !values.status && (await createDatabaseIfMissing(databaseUrl, dbConnectTimeoutMs))
      await ctx.withDatabase(
        async (database) => {
          const applied = values.status ? undefined : (await migrateToLatest(database.db)).applied
          ctx.out({
            store: database.kind,
            ...(created ? { created: true } : {}),
            ...(applied ? { applied } : {}),
            migrations: await migrationStatus(database.db),
          })
        },
        { migrate: false },
      )
    },
  },
  {
    name: 'openapi',
    summary: 'Print the OpenAPI 3.1 document',
    usage: 'livestock-api openapi',
    options: {},
    run: async (_v, _p, ctx) => {
      const [{ buildApp }, { openDatabase }] = await Promise.all([import('../app.ts'), import('../db/database.ts')])
      // The document depends on the route schemas and limits only, so an in-memory store serves.
      const config = { ...ctx.config(), databaseUrl: undefined, dataDir: IN_MEMORY, jwtSecret: 'x'.repeat(32) }
      const database = await openDatabase(config)
      const app = await buildApp({ config, database, logger: false })
      try {
        ctx.out(app.swagger())
      } finally {
        await app.close()
        await database.close()
      }
    },
  },
  {
    name: 'web-push-key',
    summary: 'Print a new Web Push (VAPID) key for WEB_PUSH_PRIVATE_KEY, with its public key',
    usage: 'livestock-api web-push-key',
    options: {},
    help:
      'Set privateKey as WEB_PUSH_PRIVATE_KEY on every process (DATABASE_URL: none is generated). A new key ends ' +
      'every browser subscription made with the old one: the farm app subscribes again when it next opens.',
    run: async (_v, _p, ctx) => {
      const { newWebPushPrivateKey, webPushPublicKey } = await import('../web-push-key.ts')
      const privateKey = newWebPushPrivateKey()
      ctx.out({ privateKey, publicKey: webPushPublicKey(privateKey) })
    },
  },
]

export const commands: Command[] = [
  ...serviceCommands,
  ...integratorCommands,
  ...userCommands,
  ...jobCommands,
  ...simulateCommands,
  ...brokerCommands,
]
