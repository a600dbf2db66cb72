// What a bench scenario is and what it reports (the scenarios themselves are listed in scenarios.ts).
export interface BenchResult {
  baseline: string
  measured: string
  /** measured / baseline, in the direction the target states. */
  ratio: number
  target: string
  met: boolean
}

/** A scenario of one row against its baseline, or of several rows of the table at once (`rows`). */
export type Scenario = {
  name: string
  description: string
} & ({ run: () => Promise<BenchResult> } | { rows: () => Promise<TableRow[]> })

/** One measured row of the table. */
export interface TableRow {
  scenario: string
  service: string
  baseline: string
  /** In the direction the target states; null where the row is reported without a ratio. */
  ratio: number | null
  target: string
  /** null: reported, no target. */
  met: boolean | null
  figures?: Record<string, unknown>
}
