// `npm run bench`: performance scenarios, each reported as a ratio against a baseline measured in
// the same run on the same machine (absolute numbers vary between machines; ratios much less).
// Scenarios arrive with the issues that set targets (limits, ingestion, reads, analytics).
import { scenarios } from './scenarios.ts'

const only = process.argv.slice(2)
const selected = scenarios.filter((s) => only.length === 0 || only.includes(s.name))
const results: { scenario: string; baseline: string; measured: string; ratio: number; target: string; met: boolean }[] = []

for (const scenario of selected) {
  console.log(`running ${scenario.name}: ${scenario.description}`)
  results.push({ scenario: scenario.name, ...(await scenario.run()) })
}
console.table(results)
if (selected.length === 0) console.log('no benchmark scenarios yet')
