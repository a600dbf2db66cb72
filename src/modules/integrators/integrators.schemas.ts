// Integrators and the links between accounts and integrators: the request and response shapes.
import Type from 'typebox'
import { EXAMPLE } from '../../http/schema-types.ts'

/** An integratorUID: opaque, shown to the account owner, never a credential on its own. */
export const IntegratorUid = (description: string) =>
  Type.String({ minLength: 1, maxLength: 200, description, examples: [EXAMPLE.integratorUid] })

export const LinkRequest = Type.Object(
  {
    integratorUID: IntegratorUid('The integrator to authorise'),
  },
  { additionalProperties: false },
)

export const LinkResponse = Type.Object({
  integrators: Type.Array(IntegratorUid('An integrator linked to the account'), {
    maxItems: 1000,
    description: 'integratorUIDs linked to the account',
  }),
})

export const UnlinkParams = Type.Object({ integratorUid: IntegratorUid('The integrator to unlink') })
