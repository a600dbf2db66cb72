// Pure arithmetic that released migrations (0090, 0095) run too: it must never change.

/** Points [x, y] of a piecewise-linear map, rising in both coordinates. */
export type Knots = readonly (readonly [number, number])[]

/**
 * `x` through `knots`: linear between two knots, the end knots' values beyond them. `from`/`to` pick the direction:
 * 0 → 1 reads the map forwards, 1 → 0 its inverse.
 */
export function interpolate(knots: Knots, x: number, from: 0 | 1, to: 0 | 1): number {
  if (x <= knots[0]![from]) return knots[0]![to]
  for (let k = 1; k < knots.length; k++) {
    const [a, b] = [knots[k - 1]!, knots[k]!]
    if (x <= b[from]) return a[to] + ((b[to] - a[to]) * (x - a[from])) / (b[from] - a[from])
  }
  return knots.at(-1)![to]
}
