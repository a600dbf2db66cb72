// Where a newly created event is announced, once the transaction that created it has committed: the live
// stream wakes its readers, MQTT publishes it, delivery may queue it. One hub per app (app.events); the
// listeners run in this process only, so a reader in another process learns of the event from the store
// (the stream polls its cursor), never from the hub alone.
import type { FastifyBaseLogger } from 'fastify'
import type { EventRow } from './events.repository.ts'

export type EventListener = (events: readonly EventRow[]) => void

export interface EventHub {
  /** Whether events are derived at all (EVENT_DERIVATION). */
  readonly derive: boolean
  /** Tells every listener of events that have just been committed. */
  announce(events: readonly EventRow[]): void
  /** Adds a listener; returns its removal. */
  subscribe(listener: EventListener): () => void
}

export function createEventHub(options: { derive: boolean; log?: FastifyBaseLogger | undefined }): EventHub {
  const listeners = new Set<EventListener>()
  return {
    derive: options.derive,
    announce(events) {
      if (events.length === 0) return
      for (const listener of listeners) {
        try {
          listener(events)
        } catch (err) {
          options.log?.error({ err }, 'an event listener failed')
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
