// GET /users/:userId/births/statistics: totals of the user's births, optionally of one animal and
// between two dates, with the derived figures of births.rules.ts.
import { sql } from 'kysely'
import Type from 'typebox'
import { Envelope, ok } from '../../../http/envelope.ts'
import type { App } from '../../../types.ts'
import { normalizeMac } from '../../animals/animals.rules.ts'
import { MacString, UserPath } from '../../animals/animals.resource.ts'
import { IsoDate, dayRange } from '../date-range.ts'
import { birthStatistics } from './births.rules.ts'

const Figure = (description: string, example: number) => Type.Number({ minimum: 0, description, examples: [example] })

/** The examples: 24 litters, 312 born alive and 22 dead. */
export const BirthStatisticsSchema = Type.Object(
  {
    totalBirths: Figure('Births counted', 24),
    totalLiving: Figure('Piglets born alive, summed', 312),
    totalDead: Figure('Piglets born dead, summed', 22),
    averageLitterSize: Figure('(totalLiving + totalDead) / totalBirths; 0 without births', 13.92),
    survivalRate: Figure('totalLiving / (totalLiving + totalDead) × 100, a percentage; 0 without piglets', 93.41),
  },
  { title: 'BirthStatistics', additionalProperties: false },
)

export async function birthStatisticsRoute(app: App) {
  app.get(
    '/users/:userId/births/statistics',
    {
      schema: {
        operationId: 'getBirthStatistics',
        summary: 'Birth statistics of the user',
        description:
          'Over every birth of the user (archived ones too), or of the animal `mac`, with StartDate between startDate and ' +
          'endDate (ISO 8601, both inclusive, compared by UTC calendar day; either may be left out).',
        params: UserPath,
        querystring: Type.Object({
          mac: Type.Optional(MacString("Only this animal's births (MAC in either case)")),
          startDate: Type.Optional(IsoDate('First day', '2026-01-01')),
          endDate: Type.Optional(IsoDate('Last day', '2026-12-31')),
        }),
        response: { 200: Envelope(BirthStatisticsSchema) },
      },
      config: { access: 'own', cost: 'expensive' },
    },
    async (req) => {
      const { mac, startDate, endDate } = req.query
      const { from, to } = dayRange(startDate, endDate)
      const { rows } = await sql<{ births: number; living: number; dead: number }>`
      SELECT count(*)::int AS births, coalesce(sum(b.living), 0)::float8 AS living, coalesce(sum(b.dead), 0)::float8 AS dead
      FROM births b JOIN animals a ON a.uid = b.uid AND a.id = b.animal_id
      WHERE b.uid = ${req.params.userId}
        ${mac === undefined ? sql`` : sql`AND a.mac = ${normalizeMac(mac)}`}
        ${from === undefined ? sql`` : sql`AND b.start_date >= ${from}`}
        ${to === undefined ? sql`` : sql`AND b.start_date <= ${to}`}`.execute(app.database.db)
      return ok(birthStatistics(rows[0]!))
    },
  )
}
