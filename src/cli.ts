// Operator CLI: `livestock-api <command> [options]`. Output meant for scripts is JSON on stdout;
// errors go to stderr with a non-zero exit code.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { IN_MEMORY, openDatabase, type Database } from './db/database.ts'
import { migrateToLatest, migrationStatus } from './db/migrate.ts'
import { VERSION } from './version.ts'

export class UsageError extends Error {}

export interface CliContext {
  config: () => Config
  /** Opens the configured database (migrated), runs fn, closes it. */
  withDatabase: <T>(fn: (database: Database) => Promise<T>) => Promise<T>
  out: (value: unknown) => void
}

export interface Command {
  name: string
  summary: string
  usage: string
  options: ParseArgsOptionsConfig
  /** Lines after the usage in --help. */
  help?: string
  run: (values: Record<string, string | boolean | undefined>, positionals: string[], ctx: CliContext) => Promise<void>
}

const commands: Command[] = [
  {
    name: 'serve',
    summary: 'Start the HTTP service (same as npm start)',
    usage: 'livestock-api serve',
    options: {},
    help: 'Configuration comes from the environment; see the README.',
    run: async () => {
      const { main } = await import('./server.ts')
      await main()
    },
  },
  {
    name: 'migrate',
    summary: 'Apply pending database migrations (or show their status)',
    usage: 'livestock-api migrate [--status]',
    options: { status: { type: 'boolean' } },
    run: async (values, _p, ctx) => {
      const config = ctx.config()
      const database = await openDatabase(config)
      try {
        if (values.status) {
          ctx.out({ store: database.kind, migrations: await migrationStatus(database.db) })
        } else {
          const { applied } = await migrateToLatest(database.db)
          ctx.out({ store: database.kind, applied, migrations: await migrationStatus(database.db) })
        }
      } finally {
        await database.close()
      }
    },
  },
  {
    name: 'openapi',
    summary: 'Print the OpenAPI 3.1 document',
    usage: 'livestock-api openapi',
    options: {},
    run: async (_v, _p, ctx) => {
      const { buildApp } = await import('./app.ts')
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
]

/** Commands of the resource modules, loaded on first use (they import this file's types). */
async function loadModuleCommands() {
  const [{ integratorCommands }, { userCommands }, { jobCommands }, { simulateCommands }] = await Promise.all([
    import('./modules/tokens/integrators.cli.ts'),
    import('./modules/users/users.cli.ts'),
    import('./jobs/jobs.cli.ts'),
    import('./modules/readings/simulate.cli.ts'),
  ])
  for (const command of [...integratorCommands, ...userCommands, ...jobCommands, ...simulateCommands]) {
    if (!commands.some((c) => c.name === command.name)) commands.push(command)
  }
}

function topHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    `livestock-api ${VERSION}: operator CLI of the Livestock API`,
    '',
    'Usage: livestock-api <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --help. Configuration (DATABASE_URL, DATA_DIR, ...) comes from the environment.',
    'Output meant for scripts is JSON on stdout; errors go to stderr with a non-zero exit code.',
  ].join('\n')
}

function commandHelp(command: Command): string {
  const lines = [`${command.summary}`, '', `Usage: ${command.usage}`]
  const names = Object.entries(command.options)
  if (names.length > 0) {
    lines.push('', 'Options:')
    for (const [name, opt] of names) lines.push(`  --${name}${opt.type === 'string' ? ' <value>' : ''}`)
  }
  lines.push('  --help  Show this help')
  if (command.help) lines.push('', command.help)
  return lines.join('\n')
}

export async function runCli(argv: string[], io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  await loadModuleCommands()
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${topHelp()}\n`)
    return name === undefined ? 1 : 0
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${VERSION}\n`)
    return 0
  }
  const command = commands.find((c) => c.name === name)
  if (!command) {
    io.stderr.write(`Unknown command "${name}".\n\n${topHelp()}\n`)
    return 2
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n\n${commandHelp(command)}\n`)
    return 2
  }
  if (parsed.values.help) {
    io.stdout.write(`${commandHelp(command)}\n`)
    return 0
  }
  const ctx: CliContext = {
    config: () => loadConfig(),
    withDatabase: async (fn) => {
      const database = await openDatabase(ctx.config())
      try {
        await migrateToLatest(database.db)
        return await fn(database)
      } finally {
        await database.close()
      }
    },
    out: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  }
  try {
    await command.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals, ctx)
    return 0
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${err.message}\n\n${commandHelp(command)}\n`)
      return 2
    }
    io.stderr.write(`${err instanceof ConfigError ? err.message : `Error: ${(err as Error).message ?? String(err)}`}\n`)
    return 1
  }
}
