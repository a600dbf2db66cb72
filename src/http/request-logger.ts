// Fastify gives every request a child of the service's logger, bound to its request id. Making a pino child
// costs more than most of the request (with redaction configured, pino runs the redactor over the bindings),
// and at LOG_LEVEL=warn or above most requests log nothing. So the request's logger makes its child on the
// first call at an enabled level; a request that logs nothing never makes one.
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LogArguments = [obj: unknown, msg?: string, ...args: unknown[]]

/** A pino logger answers isLevelEnabled; Fastify's null logger (logger: false) does not. */
interface LevelAware extends FastifyBaseLogger { isLevelEnabled: (level: string) => boolean }

const knowsLevels = (logger: FastifyBaseLogger): logger is LevelAware =>
  typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function'

export class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: LevelAware
  readonly #bindings: Bindings
  #child: FastifyBaseLogger | undefined

  constructor(parent: LevelAware, bindings: Bindings) {
    this.#parent = parent
    this.#bindings = bindings
  }

  /** The child, made on first use. */
  get made(): boolean { return this.#child !== undefined }

  get level(): string { return this.#child?.level ?? this.#parent.level }
  set level(level: string) { this.#logger().level = level }

  fatal(...args: LogArguments) { this.#log('fatal', args) }
  error(...args: LogArguments) { this.#log('error', args) }
  warn(...args: LogArguments) { this.#log('warn', args) }
  info(...args: LogArguments) { this.#log('info', args) }
  debug(...args: LogArguments) { this.#log('debug', args) }
  trace(...args: LogArguments) { this.#log('trace', args) }
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options)
  }

  #log(level: Level, args: LogArguments) {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return
    ;(this.#logger()[level])(...args)
  }

  #logger(): FastifyBaseLogger {
    return this.#child ??= this.#parent.child(this.#bindings)
  }
}

/** Fastify's childLoggerFactory: lazy when it can be, pino's own child when the route sets a level or serializers. */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (!knowsLevels(logger) || options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options)
  return new LazyChildLogger(logger, bindings)
}
