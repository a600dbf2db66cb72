// Which store work may wait. The embedded store has one connection: a statement that waits for it is granted in
// order, except that work marked here (an expensive request's) waits behind every other request's, so a cheap read
// waits at most for the one statement running (docs/runtime.md, The embedded store's thread). PostgreSQL's pool
// needs no order of its own: the per-caller bound leaves it connections for the cheap reads.
import { AsyncLocalStorage } from 'node:async_hooks'

const behindOthers = new AsyncLocalStorage<true>()

/** Runs `work` with every store statement it starts waiting behind the statements of other work. */
export function runBehindOtherStoreWork<T>(work: () => T): T {
  return behindOthers.run(true, work)
}

/** Whether the calling work runs behind others (runBehindOtherStoreWork). */
export function isBehindOtherStoreWork(): boolean {
  return behindOthers.getStore() === true
}
