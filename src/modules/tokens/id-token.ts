// OpenID Connect ID tokens from a configured identity provider, verified against its JWKS.
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose'
import { ApiError, unauthorized } from '../../http/errors.ts'
import { AUTH_ERRORS } from '../../auth/errors.ts'
import type { Clock } from '../../types.ts'

// Asymmetric algorithms only: an ID token signed with a shared secret cannot be checked against a JWKS.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']

export class IdTokenVerifier {
  private readonly jwks: JWTVerifyGetKey
  private readonly issuer: string
  private readonly audience: string
  private readonly clock: Clock
  private readonly emailVerified: 'required' | 'optional'

  constructor(
    options: { issuer: string; jwksUrl: string; audience: string; emailVerified: 'required' | 'optional' },
    clock: Clock,
  ) {
    this.jwks = createRemoteJWKSet(new URL(options.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 })
    this.issuer = options.issuer
    this.audience = options.audience
    this.clock = clock
    this.emailVerified = options.emailVerified
  }

  async verify(idToken: string): Promise<{ sub: string; email: string }> {
    let payload
    try {
      ;({ payload } = await jwtVerify(idToken, this.jwks, {
        algorithms: ALGORITHMS,
        issuer: this.issuer,
        audience: this.audience,
        currentDate: new Date(this.clock()),
        requiredClaims: ['sub', 'exp', 'iat'],
      }))
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthorized(AUTH_ERRORS.expired)
      if (
        err instanceof joseErrors.JWKSTimeout ||
        (err instanceof Error && /fetch failed|ECONNREFUSED/.test(err.message))
      ) {
        throw new ApiError(503, 'Identity provider keys cannot be fetched', { headers: { 'retry-after': '30' } })
      }
      throw unauthorized(AUTH_ERRORS.invalidToken)
    }
    // An e-mail the provider has not verified proves nothing about the account. A provider that leaves the claim
    // out (Microsoft Entra ID, for one) may carry an e-mail its user typed in: taken only by the operator's opt-in.
    const verified = payload.email_verified === true || payload.email_verified === 'true'
    const unsaid = payload.email_verified === undefined && this.emailVerified === 'optional'
    if (typeof payload.email !== 'string' || !(verified || unsaid)) throw unauthorized(AUTH_ERRORS.invalidToken)
    return { sub: String(payload.sub), email: payload.email }
  }
}
