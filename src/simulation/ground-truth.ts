// What truly happened to a simulated animal, whatever its family: what the evaluations count alarms against.

/** A stretch of time, ms. */
export interface Span {
  from: number
  to: number
}

/** A simulated animal as every family gives it: who it is, what truly happened, and when not to blame its alarms. */
export interface AnimalTruth {
  index: number
  sex: 'male' | 'female'
  /** The pen or batch: 'Batch 3', 'Gilts', 'Boars'. */
  group: string
  /**
   * Onsets of farrowings (the first piglet; weak: a weak or short nest builder), standing heats (silent: hardly any
   * rise, counted apart) and lameness within the window.
   */
  truth: {
    farrowings: { onset: number; weak: boolean }[]
    heats: { onset: number; end: number; silent: boolean }[]
    lameness: { onset: number }[]
  }
  /** Loose or torn tags, sickness, times without readings: when alarms are counted apart, not as false. */
  confounders: Span[]
}
