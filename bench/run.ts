// `npm run bench`: the performance table (table.ts, docs/performance.md), every scenario against a baseline
// measured in the same run on the same machine (absolute numbers vary between machines; ratios much less).
// `npm run bench -- smoke`: the same on tiny data for about a second each, no thresholds (CI).
// `npm run bench -- stores`: the embedded store against PostgreSQL on the same reads (needs DATABASE_URL).
// `npm run bench -- <name> ...`: the older single-feature scenarios of scenarios.ts (limits, access-log, ...).
import { scenarios } from './scenarios.ts'
import { runTable } from './table.ts'

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
  for (const scenario of scenarios.filter((s) => only.includes(s.name))) {
    console.log(`running ${scenario.name}: ${scenario.description}`)
    results.push({ scenario: scenario.name, ...(await scenario.run()) })
  }
  console.table(results)
}
