// The parts GET .../predictions/settings builds its learned values' schemas from (predictions.settings.ts and
// due-bar.settings.ts): each a learned number, a count, a span of days, its limits and its reason.
import Type, { type TProperties } from 'typebox'
import { Integer } from '../../http/schema-types.ts'

/** A learning's span in days (1-366). */
export const Days = (description: string, example: number) =>
  Integer({ minimum: 1, maximum: 366, description, examples: [example] })

/** A count of a class's events (0-1000). */
export const Events = (description: string, example: number) =>
  Integer({ minimum: 0, maximum: 1000, description, examples: [example] })

/** A non-negative rate or share; null where there was nothing to count. */
export const Rate = (description: string, example: number) =>
  Type.Union([Type.Number({ minimum: 0, examples: [example] }), Type.Null()], { description })

/** A setting's number: a limit, an offset, a default. */
export const Setting = (description: string, example: number) => Type.Number({ description, examples: [example] })

/** Days after a service, as the farm's gestation moves them: [from, to]. */
export const DaySpan = (description: string, example: [number, number]) =>
  Type.Object(
    {
      from: Setting('First day after the service', example[0]),
      to: Setting('Last day after the service', example[1]),
    },
    { additionalProperties: false, description },
  )

/** The limits of a learning. */
export const Limits = <P extends TProperties>(properties: P) =>
  Type.Object(properties, {
    additionalProperties: false,
    description: 'The limits that keep a few records from running it away',
  })

/** Why a learned value is what it is, in words. */
export const Reason = (maxLength: number, description: string, example: string) =>
  Type.String({ maxLength, description, examples: [example] })
