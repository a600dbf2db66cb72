// One event stream for the signed-in app, shared by whoever listens (the attention screen, this device's
// notifications): the service counts each open stream, and two screens should not hold two.
import { followStream, userPath } from './api.ts'

export interface LiveListener {
  onEvent?: (data: unknown) => void
  onState?: (connected: boolean) => void
}

const listeners = new Set<LiveListener>()
let stopStream: (() => void) | undefined
let connected = false

/** Listens to the account's events until the returned function is called; the stream closes with its last listener. */
export function listenToEvents(listener: LiveListener): () => void {
  listeners.add(listener)
  listener.onState?.(connected)
  stopStream ??= followStream(userPath('/events/stream'), {
    onState: (now) => {
      connected = now
      for (const each of listeners) each.onState?.(now)
    },
    onEvent: (data) => {
      for (const each of listeners) each.onEvent?.(data)
    },
  })
  return () => {
    listeners.delete(listener)
    if (listeners.size > 0) return
    stopStream?.()
    stopStream = undefined
    connected = false
  }
}
