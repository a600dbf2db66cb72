// A node:test reporter that prints, when the run ends, the test files that took longest: the sum of each
// file's top-level tests (its set-up in `before` hooks included, its process start not). CI's log keeps it, so a
// run that grew slower says where. Under test/run.ts, whose batches each run a node --test of their own, it appends
// each file's time to TEST_TIMINGS_FILE instead, and the run prints the whole (printSlowestFiles).
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import type { TestEvent } from 'node:test/reporters'

const SHOWN = 10

export default async function* slowestFiles(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const byFile = new Map<string, number>()
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const { file, nesting, details } = event.data
    if (!file || nesting !== 0) continue
    byFile.set(file, (byFile.get(file) ?? 0) + details.duration_ms)
  }
  const timings = process.env.TEST_TIMINGS_FILE
  if (timings) {
    appendFileSync(timings, [...byFile].map(([file, ms]) => `${JSON.stringify({ file, ms })}\n`).join(''))
    return
  }
  yield slowestText(byFile)
}

/** The slowest files of a whole run, from the times its batches appended to `file`. */
export function printSlowestFiles(file: string) {
  if (!existsSync(file)) return
  const byFile = new Map<string, number>()
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const { file: name, ms } = JSON.parse(line) as { file: string; ms: number }
    byFile.set(name, (byFile.get(name) ?? 0) + ms)
  }
  process.stdout.write(slowestText(byFile))
}

function slowestText(byFile: Map<string, number>): string {
  const total = [...byFile.values()].reduce((sum, ms) => sum + ms, 0)
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SHOWN)
  return (
    `\nslowest test files (seconds of test time; ${Math.round(total / 1000)} s over ${byFile.size} files):\n` +
    slowest.map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)}  ${relative(file)}\n`).join('')
  )
}

function relative(file: string): string {
  const cwd = `${process.cwd()}/`
  return file.startsWith(cwd) ? file.slice(cwd.length) : file
}
