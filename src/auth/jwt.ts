// Signing and verifying this service's JWTs, per RFC 8725 (JWT Best Current Practices):
// one algorithm (HS256) allowed, explicit `typ` per token kind (access tokens `at+jwt` as RFC 9068,
// refresh tokens `rt+jwt`), issuer and audience set and checked, a key of at least 256 bits.
// An access token can never pass as a refresh token or the other way round: typ and `type` differ.
// @see https://www.rfc-editor.org/rfc/rfc8725
import { randomUUID, type webcrypto } from 'node:crypto'
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose'
import type { Clock } from '../types.ts'

export type TokenType = 'access' | 'refresh'
export type Subject = { kind: 'integrator'; id: string } | { kind: 'user'; id: string }

export interface VerifiedToken {
  subject: Subject
  type: TokenType
  jti: string
  /** Seconds since epoch, as in the JWT. */
  iat: number
  exp: number
}

export interface SignedToken {
  token: string
  jti: string
  iat: number
  exp: number
}

export class TokenError extends Error {
  readonly reason: 'expired' | 'invalid'
  constructor(reason: 'expired' | 'invalid') {
    super(reason === 'expired' ? 'Token has expired' : 'Invalid token')
    this.reason = reason
  }
}

const ALGORITHM = 'HS256'
const TYP: Record<TokenType, string> = { access: 'at+jwt', refresh: 'rt+jwt' }
/** Access tokens kept verified at most; beyond it the oldest go first. */
const VERIFIED_MAX = 10_000

export class TokenSigner {
  private readonly key: Uint8Array<ArrayBuffer>
  /** The key as a WebCrypto key, imported once: given raw bytes, jose imports them anew on every sign and verify. */
  private cryptoKey: Promise<webcrypto.CryptoKey> | undefined
  private readonly issuer: string
  private readonly audience: string
  private readonly clock: Clock
  /**
   * Access tokens already verified, by their exact text. Verifying HS256 through WebCrypto (a key import and
   * an HMAC job per call) was a large share of an authenticated read's CPU (docs/performance.md). What a
   * signature proves about a given token text cannot change, so each token is verified once; its expiry is
   * checked again on every use. Revocation and the caller's state are not the token's business: the access
   * check asks for them on every request (auth/caller.ts).
   */
  private readonly verified = new Map<string, VerifiedToken>()

  constructor(options: { secret: string; issuer: string; audience: string; clock: Clock }) {
    this.key = new TextEncoder().encode(options.secret)
    if (this.key.length < 32) throw new Error('JWT signing key must be at least 256 bits')
    this.issuer = options.issuer
    this.audience = options.audience
    this.clock = options.clock
  }

  private signingKey(): Promise<webcrypto.CryptoKey> {
    this.cryptoKey ??= crypto.subtle.importKey('raw', this.key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ])
    return this.cryptoKey
  }

  async sign(subject: Subject, type: TokenType, ttlSeconds: number): Promise<SignedToken> {
    const jti = randomUUID()
    const iat = Math.floor(this.clock() / 1000)
    const exp = iat + ttlSeconds
    // The spec's TokenPayload for integrators; docs/decisions.md's payload for users.
    const claims: JWTPayload =
      subject.kind === 'integrator' ? { integratorUID: subject.id, type } : { sub: subject.id, type, kind: 'user' }
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, typ: TYP[type] })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(await this.signingKey())
    return { token, jti, iat, exp }
  }

  /** Verifies signature, algorithm, typ, issuer, audience and expiry; throws TokenError. */
  async verify(token: string, expected: TokenType): Promise<VerifiedToken> {
    const known = expected === 'access' ? this.verified.get(token) : undefined
    if (known) {
      // jose's rule: expired once exp <= now, in whole seconds.
      if (known.exp > Math.floor(this.clock() / 1000)) return known
      this.verified.delete(token)
      throw new TokenError('expired')
    }
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, await this.signingKey(), {
        algorithms: [ALGORITHM],
        typ: TYP[expected],
        issuer: this.issuer,
        audience: this.audience,
        requiredClaims: ['jti', 'iat', 'exp'],
        currentDate: new Date(this.clock()),
      }))
    } catch (err) {
      throw new TokenError(err instanceof joseErrors.JWTExpired ? 'expired' : 'invalid')
    }
    if (
      payload.type !== expected ||
      typeof payload.jti !== 'string' ||
      typeof payload.iat !== 'number' ||
      typeof payload.exp !== 'number'
    ) {
      throw new TokenError('invalid')
    }
    let subject: Subject
    if (payload.kind === 'user' && typeof payload.sub === 'string') subject = { kind: 'user', id: payload.sub }
    else if (payload.kind === undefined && typeof payload.integratorUID === 'string')
      subject = { kind: 'integrator', id: payload.integratorUID }
    else throw new TokenError('invalid')
    const verified: VerifiedToken = Object.freeze({
      subject: Object.freeze(subject),
      type: expected,
      jti: payload.jti,
      iat: payload.iat,
      exp: payload.exp,
    })
    if (expected === 'access') {
      if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!)
      this.verified.set(token, verified)
    }
    return verified
  }
}
