// BirthStatistics (docs/decisions.md): averageLitterSize = (totalLiving + totalDead) / totalBirths;
// survivalRate = totalLiving / (totalLiving + totalDead) × 100; both 0 when there is nothing to count.

export interface BirthTotals {
  births: number
  living: number
  dead: number
}

export interface BirthStatistics {
  totalBirths: number
  totalLiving: number
  totalDead: number
  averageLitterSize: number
  survivalRate: number
}

export function birthStatistics({ births, living, dead }: BirthTotals): BirthStatistics {
  const born = living + dead
  return {
    totalBirths: births,
    totalLiving: living,
    totalDead: dead,
    averageLitterSize: births > 0 ? born / births : 0,
    survivalRate: born > 0 ? (living / born) * 100 : 0,
  }
}
