// Polling for tests that wait on another process or a broker: probe until done, or fail naming what
// was awaited and the last value seen.
import assert from 'node:assert/strict'

export async function eventually<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  what: string,
  { timeoutMs = 10_000, intervalMs = 50 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (done(value)) return value
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last value ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
