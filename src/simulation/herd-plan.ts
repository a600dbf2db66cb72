// What the cycle family's simulator plans for each animal (herd-simulator.ts): the ground truth an evaluation scores
// against and the farm's records of it, and the farm profiles a plan is drawn for.

export interface SimulatedAnimal {
  index: number
  MAC: string
  Sex: 'male' | 'female'
  Group: string
  Battery: number
  HealthScore: number
  homeNode: string
  neighbourNode: string
}

/**
 * A farrowing: its onset (the first piglet) and the sow's nest building before it, which keeps her active for
 * up to nestPeakShare of her time at its peak whatever the hour (an internal drive, not the day's rhythm).
 */
export interface FarrowingEpisode {
  onset: number
  nestPeakLeadMs: number
  nestDurationMs: number
  nestPeakShare: number
  /** A weak nest builder of the late-crates profile: activity times up to this at the peak instead (0 share). */
  nestFactor?: number
}
/** A heat (oestrus): when the activity rise starts and ends, and how strong it is (activity multiplier). */
export interface HeatEpisode {
  onset: number
  end: number
  amplitude: number
  /** How long the rise takes to build up (and to fade), ms; 6 h unless the profile says otherwise. */
  edgeMs?: number
  /** The rise at night (18:00-06:00) as a share of the day's (the weak-heats profile); 1 (the same) unless given. */
  nightShare?: number
}
/** A lameness: from its onset, activity and movement decline over declineMs to the given fractions. */
export interface LamenessEpisode {
  onset: number
  declineMs: number
  activityFactor: number
  movementFactor: number
}
export interface Interval {
  from: number
  to: number
}

/** What happens to one animal: the ground truth an evaluation scores against, and the farm's records of it. */
export interface AnimalPlan {
  farrowings: FarrowingEpisode[]
  heats: HeatEpisode[]
  lameness: LamenessEpisode[]
  /** Inseminations, as the farm records them (at the service, during the heat). */
  services: number[]
  weanings: number[]
  /** Weanings the farm did not record (the gilts profile): they happened (the sow left the crate), no record says so. */
  unrecordedWeanings?: number[]
  /**
   * Return heats the farm did not see (the missed-returns profile): her service had failed, no return and no service
   * is recorded at that heat; a pregnancy check finds her open and she is served at her next heat.
   */
  unseenReturns?: number[]
  /** In a farrowing crate: from the move before farrowing to weaning. */
  crated: Interval[]
  /** The tag sent nothing (a flat battery, a gateway out of reach). */
  dropouts: Interval[]
  /** Hours of unrest of this animal alone (a fight, a vet check, being moved): activity times `amplitude`. */
  disturbances: (Interval & { amplitude: number })[]
  /** Sick (a fever, the rough profile): activity times `activity`, the ear `warmingC` warmer. */
  fevers: (Interval & { activity: number; warmingC: number })[]
  /**
   * A tag hanging loose (the rough profile): it swings as the animal breathes and scratches (resting samples read with
   * `jiggleG` of noise per axis) and reads the air gap, `coolingC` cooler than the skin.
   */
  looseTags: (Interval & { jiggleG: number; coolingC: number })[]
  /** A tag replaced after it was torn off (the rough profile): from `from` on, it reads `offsetC` off the old one. */
  tagOffsets: { from: number; offsetC: number }[]
  /** When the animal left the farm (culled, herd-records.ts): its tag is silent from then. */
  culled?: number
  /** How active a sow is in the farrowing crate, as a multiplier of her activity in the pen. */
  crateActivity: number
  /** The animal's day-to-day activity variation (a factor) and ear warmth (°C), per UTC day number (t / DAY). */
  dailyFactor: (day: number) => number
  dailyWarmth: (day: number) => number
}

export interface PlanWindow {
  seed: string
  start: number
  end: number
  /**
   * `late-crates`: a farrowing unit unlike the default's, for tuning the birth rules on what the default hardly has:
   * sows moved into the crate 0.5-9 days before farrowing (a third 0.5-2 days), far quieter there (0.4x the pen),
   * one sow in four a weak nest builder (activity 1.5-2.5x her usual at the peak, not a share of her time, so that
   * a meal hides it), one in five a short one (5-10 h).
   * `long-gestation`: the late-crates farrowing unit on a farm whose sows farrow 117-121 days after the service (a
   * breed or line with a longer gestation; the default farm 113-117), for measuring what per-farm learning reads
   * from the farm's own service and farrowing records.
   * `rough`: the default farrowing unit on a farm with the troubles real farms have (issue 28's list and the
   * literature): lameness in about one animal in seven over the period (a third of it acute), fevers, tags that hang
   * loose for days or are torn off and replaced, fights for a day or two when weaned sows are mixed, and pens disturbed
   * together or cut off by their gateway; for fitting the calibration across farms harder than the default.
   * `weak-nesters`: the late-crates farrowing unit on a farm where most sows build weak or short nests (crates without
   * nesting material, older or hyperprolific sows): three sows in four raise their activity only 1.3-2x their usual
   * at the peak (a multiplier of her usual, as late-crates' weak nesters), a third of those over 4-8 h (peaking 1-5 h
   * before onset); the others strong nest builders (25-50 % of their time), some short as late-crates'. For
   * measuring what per-farm learning can buy where the defaults miss births.
   * `gilts`: the default farm with what heat without a record is about (issue 28's list and the literature): one
   * female in five a gilt instead of a sow, cycling every 18-24 days (heats of 36-60 h, activity 1.3-1.8x, one in five
   * weaker, 1.15-1.3x, one in ten silent) with no weaning or service record until she is served, at her second to
   * sixth heat; and one weaning in four of the sows left unrecorded. For tuning heat where no record expects it.
   * `weak-heats`: the default farm with its sows' heats as the literature describes a commercial herd's rather than
   * the default's fairly strong ones: one in ten silent, seven in ten a rise of 1.15-1.45x, two in ten 1.45-1.9x;
   * 36-72 h long, building up (and fading) over 8-12 h; the rise mostly by day, when sows are disturbed and meet
   * (at night 20-50 % of the day's); the weaning-to-oestrus interval 3-8 days, one in twelve 8-12. For tuning heat on
   * heats weaker and less regular than the default's.
   * `missed-returns`: the default farm in a season when services fail more often (one in three held not, as in
   * summer infertility) and half of the returns go unseen: no return and no service is recorded at that heat, the
   * pregnancy check 28-33 days after the service finds her open, and she is served at her next heat, 18-24 days
   * after the one missed. For measuring what a negative check tells the scorer (a sow found open).
   */
  profile?: CycleProfile
}

export const CYCLE_PROFILES = [
  'default',
  'late-crates',
  'long-gestation',
  'rough',
  'weak-nesters',
  'gilts',
  'weak-heats',
  'missed-returns',
] as const
export type CycleProfile = (typeof CYCLE_PROFILES)[number]
