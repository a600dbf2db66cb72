// Operator CLI runner: `livestock-api <command> [options]`. Output meant for scripts is JSON on stdout;
// errors go to stderr with a non-zero exit code (2 for usage errors).
import { parseArgs } from 'node:util'
import type { Writable } from 'node:stream'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { openDatabase, withoutRequestTimeouts, type Database } from './db/database.ts'
import { migrateToLatest } from './db/migrate.ts'
import { databaseAccessHint } from './db/errors.ts'
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

/** The actions a command's usage names: `livestock-api user <create|set-password|update>` gives the three. */
export function actionsOf(command: Command): string[] {
  const alternatives = /<([^>]+)>/.exec(command.usage)?.[1] ?? ''
  return alternatives
    .split('|')
    .map((a) => a.trim().split(/\s+/)[0] ?? '')
    .filter((a) => /^[a-z][a-z-]*$/.test(a))
}

/**
 * A command's help. With an action (`integrator create --help`), only that action's lines of the help (a line
 * starting with its name and the indented lines after it), the notes that belong to no action, and the options
 * those lines mention.
 */
export function commandHelp(command: Command, action?: string): string {
  const actions = actionsOf(command)
  const focus = action !== undefined && actions.includes(action) ? action : undefined
  const blocks: string[][] = []
  for (const line of (command.help ?? '').split('\n').filter((l) => l !== '')) {
    if (/^\s/.test(line) && blocks.length > 0) blocks.at(-1)!.push(line)
    else blocks.push([line])
  }
  const firstWord = (block: string[]) => block[0]!.split(/\s+/)[0] ?? ''
  const kept =
    focus === undefined
      ? blocks
      : blocks.filter((block) => firstWord(block) === focus || !actions.includes(firstWord(block)))
  const text = kept.map((block) => block.join('\n')).join('\n')
  const usage = focus === undefined ? command.usage : `livestock-api ${command.name} ${focus} [options]`
  const lines = [`${command.summary}`, '', `Usage: ${usage}`]
  const names = Object.entries(command.options).filter(([name]) => focus === undefined || text.includes(`--${name}`))
  if (names.length > 0) {
    lines.push('', 'Options:')
    const labels = names.map(([name, opt]) => `--${name}${opt.type === 'string' ? ` ${opt.value ?? 'VALUE'}` : ''}`)
    const width = Math.max(...labels.map((label) => label.length), '--help'.length) + 2
    names.forEach(([, opt], i) => lines.push(`  ${labels[i]!.padEnd(width)}${opt.description}`))
    lines.push(`  ${'--help'.padEnd(width)}Show this help`)
  } else {
    lines.push('', 'Options:', '  --help  Show this help')
  }
  if (text) lines.push('', text)
  return lines.join('\n')
}

/** One line for a mistake, and where to read more: not the whole help, which buries the line. */
function usageError(io: CliIo, message: string, command?: Command): number {
  const hint = command ? `livestock-api ${command.name} --help` : 'livestock-api --help'
  io.stderr.write(`${message}\nSee: ${hint}\n`)
  return 2
}

/**
 * `--animals -3` reads to parseArgs as an option named -3; written `--animals=-3` it is a value. A negative
 * number after a string option is joined to it, so both spellings get the same range error.
 */
export function joinNegativeValues(args: string[], command: Command): string[] {
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const next = args[i + 1]
    const option = arg.startsWith('--') ? command.options[arg.slice(2)] : undefined
    if (option?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`)
      i++
    } else {
      joined.push(arg)
    }
  }
  return joined
}

function contextFor(io: CliIo, options: CliOptions): CliContext {
  const config = () => options.config ?? loadConfig()
  return {
    config,
    withDatabase: async (fn, { migrate = true } = {}) => {
      // An operator's command may rightly run for minutes (a migration, a job over every farm): no request timeouts.
      const database = options.database ?? (await openDatabase(withoutRequestTimeouts(config())))
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

/** DATABASE_URL, for the hint of an error; undefined when the configuration itself is bad (its own error says so). */
function configuredDatabaseUrl(options: CliOptions): string | undefined {
  try {
    return (options.config ?? loadConfig()).databaseUrl
  } catch {
    return undefined
  }
}

/** parseArgs's view of a command's options: their types. */
function parseArgsOptions(command: Command): Record<string, { type: 'string' | 'boolean' }> {
  return Object.fromEntries(Object.entries(command.options).map(([name, { type }]) => [name, { type }]))
}

export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const io = options.io ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }
  const [name, ...rest] = argv
  if (name === undefined) {
    io.stderr.write(`${topHelp()}\n`)
    return 2
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${topHelp()}\n`)
    return 0
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${VERSION}\n`)
    return 0
  }
  const command = commands.find((c) => c.name === name)
  if (!command) return usageError(io, `Unknown command "${name}"`)
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: joinNegativeValues(rest, command),
      options: { ...parseArgsOptions(command), help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
  } catch (err) {
    return usageError(
      io,
      (err as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, ''),
      command,
    )
  }
  if (parsed.values.help) {
    io.stdout.write(`${commandHelp(command, parsed.positionals[0])}\n`)
    return 0
  }
  // A command takes its action and nothing else: a stray word (`migrate status` for `migrate --status`) is refused
  // rather than ignored, so that it never runs what the operator did not ask for.
  const actions = actionsOf(command)
  if (actions.length > 0 && parsed.positionals.length === 0)
    return usageError(io, `Name an action: ${actions.join(', ')}`, command)
  const stray = parsed.positionals[actions.length > 0 ? 1 : 0]
  if (stray !== undefined) {
    const meant = command.options[stray] ? `; did you mean --${stray}?` : ''
    return usageError(io, `Unexpected argument "${stray}"${meant}`, command)
  }
  try {
    await command.run(
      parsed.values as Record<string, string | boolean | undefined>,
      parsed.positionals,
      contextFor(io, options),
    )
    return 0
  } catch (err) {
    if (err instanceof UsageError) return usageError(io, err.message, command)
    if (err instanceof ConfigError) {
      io.stderr.write(`${err.message}\n`)
      return 1
    }
    const hint = databaseAccessHint(err, configuredDatabaseUrl(options))
    io.stderr.write(`Error: ${(err as Error).message ?? String(err)}${hint ? ` (${hint})` : ''}\n`)
    return 1
  }
}
