// A node:test reporter that prints, when the run ends, the test files that took longest: the sum of each
// file's top-level tests (its set-up in `before` hooks included, its process start not). CI's log keeps it, so a
// run that grew slower says where.
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
  const total = [...byFile.values()].reduce((sum, ms) => sum + ms, 0)
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SHOWN)
  yield `\nslowest test files (seconds of test time; ${Math.round(total / 1000)} s over ${byFile.size} files):\n`
  for (const [file, ms] of slowest) yield `${(ms / 1000).toFixed(1).padStart(7)}  ${relative(file)}\n`
}

function relative(file: string): string {
  const cwd = `${process.cwd()}/`
  return file.startsWith(cwd) ? file.slice(cwd.length) : file
}
