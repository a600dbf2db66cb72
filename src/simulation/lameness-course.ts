// How long a simulated lameness takes to reach its worst (herd-simulator.ts draws it from a random stream of its own,
// so that the rest of the herd's draws stay as they were).
const DAY_MS = 86_400_000

/**
 * Sow lameness has many causes: some strike within a day or two (an injury, a claw lesion that opens, an infected
 * joint), most develop over one to three weeks (leg weakness, osteochondrosis, claws grown out of shape). One in five
 * acute, at its worst in 1-2 days; the others gradual, 6-20 days. Milliseconds.
 */
export function lamenessCourseMs(random: () => number): number {
  const acute = random() < 0.2
  return (acute ? 1 + random() : 6 + 14 * random()) * DAY_MS
}
