// A group's level at each hour: what most of an animal's group (or, when the group is small, the farm) does together,
// so that a late feeding or a hot afternoon is no animal's own alarm.
import { DAY_HOURS } from './hour-summaries.rules.ts'
import { median, quantile } from './baselines.rules.ts'
import type { ScorerSettings } from './scorer-settings.rules.ts'

/**
 * For each animal and index, the group's level: the `quantile` of value(animal, index) over its group's animals
 * that have one (at least groupMinAnimals), else over the farm's, else `fallback`. Below the median, so that
 * what a share of the group does together (a room farrowing together) stays each animal's own; with
 * `usualHours`, divided by its median at the same hour of the days in that many hours before (its usual level).
 */
export function groupMedians(
  herd: readonly { group: string | null }[],
  from: number,
  to: number,
  value: (k: number, i: number) => number | undefined,
  settings: ScorerSettings,
  fallback: number | undefined,
  q = settings.groupQuantile,
  usualHours = 0,
): (number | undefined)[][] {
  const groups = new Map<string, number[]>()
  herd.forEach((a, k) => groups.set(a.group ?? '', [...(groups.get(a.group ?? '') ?? []), k]))
  const start = Math.max(0, from - usualHours)
  const levels = new Map<string, (number | undefined)[]>([...groups.keys()].map((g) => [g, new Array(to + 1)]))
  // Each group's values of an index in an array reused from index to index; the farm's level only when a group
  // has too few values of its own.
  const memberLists = [...groups.values()]
  const series = [...levels.values()]
  const byGroup = memberLists.map(() => [] as number[])
  for (let i = start; i <= to; i++) {
    let count = 0
    memberLists.forEach((members, g) => {
      const values = byGroup[g]!
      values.length = 0
      for (const k of members) {
        const v = value(k, i)
        if (v !== undefined) values.push(v)
      }
      count += values.length
    })
    let farm: number | undefined | null = null
    byGroup.forEach((values, g) => {
      if (values.length >= settings.groupMinAnimals) series[g]![i] = quantile(values, q)
      else {
        if (farm === null) farm = count >= settings.groupMinAnimals ? quantile(byGroup.flat(), q) : undefined
        series[g]![i] = farm
      }
    })
  }
  const out = herd.map(() => new Array<number | undefined>(to + 1))
  for (const [name, members] of groups) {
    const series = levels.get(name)!
    const level = new Array<number | undefined>(to + 1)
    for (let i = from; i <= to; i++) {
      const v = series[i]
      if (v === undefined || usualHours === 0) {
        level[i] = v ?? fallback
        continue
      }
      const before: number[] = []
      for (let j = i - DAY_HOURS; j >= Math.max(start, i - usualHours); j -= DAY_HOURS)
        if (series[j] !== undefined) before.push(series[j]!)
      const usual = before.length >= 3 ? median(before) : undefined
      level[i] = usual === undefined || usual <= 0 ? fallback : v / usual
    }
    for (const k of members) out[k] = level
  }
  return out
}
