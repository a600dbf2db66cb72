// The shape of an operator command and the option helpers every command uses. A leaf module: command
// files import it, the runner (src/cli.ts) imports the command list, and nothing here imports either.
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'

/** A mistake in the command line: reported with the command's help, exit code 2. */
export class UsageError extends Error {}

export type CliValues = Record<string, string | boolean | undefined>

export interface CliContext {
  config: () => Config
  /**
   * Runs fn on the configured database, opened and closed around fn unless the runner was given one.
   * It is migrated first unless `migrate: false`.
   */
  withDatabase: <T>(fn: (database: Database) => Promise<T>, options?: { migrate?: boolean }) => Promise<T>
  /** Prints a result for scripts: JSON on stdout. */
  out: (value: unknown) => void
  /** Progress for people: stderr, only when it is a terminal. */
  progress: (line: string) => void
  /** Everything on standard input (for --password-stdin). */
  readStdin: () => Promise<string>
}

/** An option of a command, declared once: what parseArgs reads and what --help says of it. */
export interface CliOption {
  type: 'string' | 'boolean'
  /** The value's placeholder in --help (`--animals N`); string options only. */
  value?: string
  description: string
}

export interface Command {
  name: string
  summary: string
  usage: string
  options: Record<string, CliOption>
  /** Lines after the usage in --help. */
  help?: string
  run: (values: CliValues, positionals: string[], ctx: CliContext) => Promise<void>
}

/** A non-blank string option, trimmed; a UsageError when it is missing. */
export function requireString(values: CliValues, name: string): string {
  const value = optionalString(values, name)
  if (value === undefined) throw new UsageError(`--${name} is required`)
  return value
}

/** A non-blank string option, trimmed, or undefined. */
export function optionalString(values: CliValues, name: string): string | undefined {
  const value = values[name]
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

/** `--name true|false` (or a bare boolean flag), or undefined when absent. */
export function booleanOption(values: CliValues, name: string): boolean | undefined {
  const value = values[name]
  if (value === undefined) return undefined
  if (value === true || value === 'true') return true
  if (value === false || value === 'false') return false
  throw new UsageError(`--${name} takes true or false`)
}

/** A `--name true|false` option (read with booleanOption). */
export function trueOrFalse(description: string): CliOption {
  return { type: 'string', value: 'true|false', description }
}

/** The true|false options that were given, each under the name `names` maps it to (a column to change). */
export function givenBooleans<Name extends string>(
  values: CliValues,
  names: Record<string, Name>,
): Partial<Record<Name, boolean>> {
  const given: Partial<Record<Name, boolean>> = {}
  for (const [option, name] of Object.entries(names)) {
    const value = booleanOption(values, option)
    if (value !== undefined) given[name] = value
  }
  return given
}

/** A whole-number option within bounds, or the fallback when absent. */
/** `--name` as one of `choices`, or undefined when absent. */
export function choiceOption<Choice extends string>(
  values: CliValues,
  name: string,
  choices: readonly Choice[],
): Choice | undefined {
  const value = optionalString(values, name)
  if (value === undefined) return undefined
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}`)
  return value as Choice
}

export function intOption(values: CliValues, name: string, fallback: number, min: number, max: number): number {
  const raw = values[name]
  if (raw === undefined) return fallback
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`)
  }
  return Number(raw)
}
