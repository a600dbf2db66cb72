// Integrators and the links between accounts and integrators: the request and response shapes.
import Type from 'typebox'
import { DateTime, EXAMPLE } from '../../http/schema-types.ts'

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

/** An integrator linked to the account, as the owner sees it (GET /users/<user_id>/integrators). */
export const LinkedIntegrator = Type.Object(
  {
    integratorUID: IntegratorUid('The integrator'),
    name: Type.String({ maxLength: 200, description: "The integrator's name", examples: ['FarmSoft'] }),
    email: Type.String({
      format: 'email',
      maxLength: 320,
      description: "The integrator's contact e-mail",
      examples: ['support@farmsoft.example'],
    }),
    isActive: Type.Boolean({
      description: 'false: the operator deactivated the integrator; it reads nothing until reactivated',
      examples: [true],
    }),
    permissions: Type.Object(
      {
        canRead: Type.Boolean({ description: "May read the account's data", examples: [true] }),
        canWrite: Type.Boolean({ description: 'May write records and sensor data', examples: [false] }),
        canDelete: Type.Boolean({ description: 'May delete records', examples: [false] }),
      },
      { description: 'What the operator allows the integrator on every account that links it' },
    ),
    linkedAt: DateTime('When the account linked the integrator (ISO 8601, UTC)'),
    linkedBy: Type.Union([Type.Literal('owner'), Type.Literal('operator')], {
      description: 'Who made the link: the account owner (POST /partners/link) or the operator',
      examples: ['owner'],
    }),
    lastRequestAt: Type.Union(
      [
        DateTime("Its last request on the account's data still in the access log (ACCESS_LOG_RETENTION_DAYS)"),
        Type.Null(),
      ],
      { description: 'null: no request in the access log' },
    ),
  },
  { $id: 'LinkedIntegrator', additionalProperties: false },
)
