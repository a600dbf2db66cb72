// `npm run bench`: the performance table (table.ts, docs/performance.md), every scenario against a baseline
// measured in the same run on the same machine (absolute numbers vary between machines; ratios much less).
// `npm run bench -- smoke`: the same on tiny data for about a second each, no thresholds (CI).
// `npm run bench -- stores`: the embedded store against PostgreSQL on the same reads (needs DATABASE_URL).
// `npm run bench -- <name> ...`: the scenarios of scenarios.ts: the older single-feature ones (limits, access-log, ...)
// and issue 27's table (readings-at-scale).
import { writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TableRow } from './scenario.ts'
import { scenarios } from './scenarios.ts'
import { machine, printRows, runTable } from './table.ts'

const only = process.argv.slice(2)

if (only.length === 0) {
  await runTable()
} else if (only.length === 1 && only[0] === 'smoke') {
  await runTable({ smoke: true })
} else if (only.length === 1 && only[0] === 'stores') {
  await runTable({ only: 'stores' })
} else {
  const unknown = only.filter((name) => !scenarios.some((s) => s.name === name))
  if (unknown.length > 0) {
    console.error(
      `unknown bench ${unknown.join(', ')}: use no name (the table), smoke, stores, or ${scenarios.map((s) => s.name).join(', ')}`,
    )
    process.exit(2)
  }
  const results: {
    scenario: string
    baseline: string
    measured: string
    ratio: number
    target: string
    met: boolean
  }[] = []
  const rows: TableRow[] = []
  const startedAt = new Date()
  const loadBefore = loadavg()
  for (const scenario of scenarios.filter((s) => only.includes(s.name))) {
    console.log(`running ${scenario.name}: ${scenario.description}`)
    if ('rows' in scenario) rows.push(...(await scenario.rows()))
    else results.push({ scenario: scenario.name, ...(await scenario.run()) })
  }
  if (results.length > 0) console.table(results)
  if (rows.length > 0) {
    printRows(rows)
    // Scenarios of several rows keep their figures in the temp folder (bench/results.json is the full table's).
    const file = process.env.BENCH_RESULTS ?? join(tmpdir(), `livestock-api-bench-${only.join('-')}.json`)
    const machineFigures = { ...machine(), loadAverageBefore: loadBefore, loadAverageAfter: loadavg() }
    writeFileSync(
      file,
      `${JSON.stringify({ date: startedAt.toISOString(), machine: machineFigures, rows }, null, 2)}\n`,
    )
    console.log(
      `${rows.length} rows in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s; results in ${file}`,
    )
  }
}
