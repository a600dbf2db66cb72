// What a bench scenario is and what it reports (the scenarios themselves are listed in scenarios.ts).
export interface BenchResult {
  baseline: string
  measured: string
  /** measured / baseline, in the direction the target states. */
  ratio: number
  target: string
  met: boolean
}

export interface Scenario {
  name: string
  description: string
  run: () => Promise<BenchResult>
}
