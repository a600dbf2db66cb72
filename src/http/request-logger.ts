// Fastify gives every request a child of the service's logger, bound to its request id. Making a pino child
// costs more than most of the request (with redaction configured, pino runs the redactor over the bindings),
// and at LOG_LEVEL=warn or above most requests log nothing. So a child logger is made on its first call at
// an enabled level; a request that logs nothing never makes one.
//
// The laziness sits in the service logger's own `child` method, which Fastify's default child logger
// factory calls. A custom `childLoggerFactory` would do the same, but Fastify then checks the seven methods
// of every child it returns, on every request: more than the child it saves (docs/performance.md).
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LogArguments = [obj: unknown, msg?: string, ...args: unknown[]]

/** A pino logger answers isLevelEnabled; Fastify's null logger (logger: false) does not. */
interface LevelAware extends FastifyBaseLogger {
  isLevelEnabled: (level: string) => boolean
}

const knowsLevels = (logger: FastifyBaseLogger): logger is LevelAware =>
  typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function'

export class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: LevelAware
  readonly #make: () => FastifyBaseLogger
  #child: FastifyBaseLogger | undefined

  /** `make` makes the real child, on first use. */
  constructor(parent: LevelAware, make: () => FastifyBaseLogger) {
    this.#parent = parent
    this.#make = make
  }

  /** The child, made on first use. */
  get made(): boolean {
    return this.#child !== undefined
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level
  }
  set level(level: string) {
    this.#logger().level = level
  }

  fatal(...args: LogArguments) {
    this.#log('fatal', args)
  }
  error(...args: LogArguments) {
    this.#log('error', args)
  }
  warn(...args: LogArguments) {
    this.#log('warn', args)
  }
  info(...args: LogArguments) {
    this.#log('info', args)
  }
  debug(...args: LogArguments) {
    this.#log('debug', args)
  }
  trace(...args: LogArguments) {
    this.#log('trace', args)
  }
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options)
  }

  #log(level: Level, args: LogArguments) {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return
    this.#logger()[level](...args)
  }

  #logger(): FastifyBaseLogger {
    return (this.#child ??= this.#make())
  }
}

/**
 * Makes `logger.child(bindings)` return a LazyChildLogger. A child with options of its own (a route's
 * log level or serializers) is made at once. Fastify's null logger (logger: false) is left as it is.
 * A pino child inherits from its parent object, this method included: hence `this`, the logger asked.
 */
export function deferChildLoggers(logger: FastifyBaseLogger): void {
  if (!knowsLevels(logger)) return
  // pino's own method, called below with the logger asked as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const makeChild = logger.child
  logger.child = function lazyChild(this: LevelAware, bindings: Bindings, options?: ChildLoggerOptions) {
    return hasOptions(options)
      ? makeChild.call(this, bindings, options)
      : new LazyChildLogger(this, () => makeChild.call(this, bindings))
  }
}

function hasOptions(options: ChildLoggerOptions | undefined): boolean {
  for (const _ in options) return true
  return false
}
