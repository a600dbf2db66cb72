// Operator CLI runner: `livestock-api <command> [options]`. Output meant for scripts is JSON on stdout;
// errors go to stderr with a non-zero exit code (2 for usage errors).
import { parseArgs } from 'node:util'
import type { Writable } from 'node:stream'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { openDatabase, withoutRequestTimeouts, type Database } from './db/database.ts'
import { migrateToLatest } from './db/migrate.ts'
import { VERSION } from './version.ts'
import { UsageError, type CliContext, type Command } from './cli/command.ts'
import { commands } from './cli/commands.ts'

export interface CliIo {
  stdout: Pick<Writable, 'write'> & { isTTY?: boolean }
  stderr: Pick<Writable, 'write'> & { isTTY?: boolean }
  stdin: AsyncIterable<Buffer | string>
}

export interface CliOptions {
  io?: CliIo
  /** Configuration instead of the environment's (tests). */
  config?: Config
  /** An open database to run on instead of opening the configured one (tests run the CLI in-process). */
  database?: Database
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

function contextFor(io: CliIo, options: CliOptions): CliContext {
  const config = () => options.config ?? loadConfig()
  return {
    config,
    withDatabase: async (fn, { migrate = true } = {}) => {
      // An operator's command may rightly run for minutes (a migration, a job over every farm): no request timeouts.
      const database = options.database ?? await openDatabase(withoutRequestTimeouts(config()))
      try {
        if (migrate) await migrateToLatest(database.db)
        return await fn(database)
      } finally {
        if (!options.database) await database.close()
      }
    },
    out: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    progress: io.stderr.isTTY ? (line) => io.stderr.write(`\r${line}`) : () => {},
    readStdin: async () => {
      const chunks: Buffer[] = []
      for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk))
      return Buffer.concat(chunks).toString('utf8')
    },
  }
}

export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const io = options.io ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }
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
  try {
    await command.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals, contextFor(io, options))
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
