// Tokens for the client: obtained with the integrator's client credentials (POST /tokens, always with a
// refresh token) or a user's e-mail and password (POST /tokens/login), renewed before they expire by
// rotating the refresh token (POST /tokens/refresh), and, when the session is over, obtained afresh.
//
// The service's rotation rules (docs/authentication-and-limits.md, Tokens): every refresh returns a new access
// token and a new refresh token, and each refresh token works once; presenting a used one revokes every token
// of its session (reuse detection, RFC 9700 §4.14.2). So this manager never sends two refreshes at once
// (one renewal in flight, which every caller waits for) and always keeps the newest refresh token. A refresh
// refused with 401 (used, expired after its 7 days, revoked, or its integrator's secret rotated) ends the
// session: the manager falls back to the credentials. A fixed `accessToken` is sent as is and never renewed.
import type { Client } from 'openapi-fetch'
import { LivestockApiError } from './errors.ts'
import type { paths } from './schema.d.ts'
import type { BearerSource } from './transport.ts'

export type Auth =
  /** An integrator's client credentials. `clientSecret` may be left out only for an integrator created with --no-secret. */
  | {
      integratorUID: string
      clientSecret?: string
      /** Access-token lifetime, 300-86400 s (service default 3600). */ expiresIn?: number
    }
  /** A user's login (the farm's own account). */
  | { email: string; password: string }
  /** A token obtained elsewhere: sent as is, never renewed. */
  | { accessToken: string }

export interface TokenSet {
  accessToken: string
  /** The newest refresh token of the session; the previous ones no longer work. */
  refreshToken: string | undefined
  /** When the access token expires, ms since epoch on this machine's clock (corrected for the service's clock). */
  expiresAt: number
  /** The integratorUID, or the user's Uid. */
  subject: string
}

type TokenBody = {
  data: { accessToken: string; refreshToken?: string; expiresAt: number } & (
    { integratorUID: string } | { uid: string }
  )
  timestamp: string
}

export class TokenManager implements BearerSource {
  readonly #api: Client<paths>
  readonly #auth: Auth
  readonly #marginMs: number
  readonly #clock: () => number
  #current: (TokenSet & { lifetimeMs: number }) | undefined
  #renewing: Promise<TokenSet> | undefined

  /** `api`: a client for the public token endpoints (no bearer). */
  constructor(api: Client<paths>, auth: Auth, options: { refreshMarginSeconds: number; clock: () => number }) {
    this.#api = api
    this.#auth = auth
    this.#marginMs = options.refreshMarginSeconds * 1000
    this.#clock = options.clock
  }

  get renewable(): boolean {
    return !('accessToken' in this.#auth)
  }

  /** The tokens in use, if any yet. */
  get current(): Readonly<TokenSet> | undefined {
    if (!this.#current) return undefined
    const { lifetimeMs: _lifetime, ...tokens } = this.#current
    return tokens
  }

  /** An access token that is valid for a while yet: the current one, or a renewed one. */
  async accessToken(): Promise<string> {
    if ('accessToken' in this.#auth) return this.#auth.accessToken
    const current = this.#current
    // Renew ahead of expiry: by the margin, but never more than half the token's lifetime early.
    if (current && this.#clock() < current.expiresAt - Math.min(this.#marginMs, current.lifetimeMs / 2))
      return current.accessToken
    return (await this.#renew()).accessToken
  }

  invalidate(accessToken: string): void {
    // Only the token that was refused: another request may already have renewed it.
    if (this.#current?.accessToken === accessToken) this.#current = { ...this.#current, expiresAt: 0 }
  }

  /**
   * Rotates now: a new access token and a new refresh token for the current refresh token, or new tokens
   * from the credentials when there is none or the service refuses it. Waits for a renewal already under way
   * instead of starting a second one.
   */
  async refresh(): Promise<Readonly<TokenSet>> {
    if (!this.renewable)
      throw new Error('A fixed access token cannot be refreshed: give the client credentials instead')
    return this.#renew()
  }

  #renew(): Promise<TokenSet> {
    this.#renewing ??= this.#rotate().finally(() => {
      this.#renewing = undefined
    })
    return this.#renewing
  }

  async #rotate(): Promise<TokenSet> {
    const refreshToken = this.#current?.refreshToken
    if (refreshToken !== undefined) {
      const result = await this.#api.POST('/api/v1/tokens/refresh', { body: { refreshToken } })
      if (result.data) return this.#store(result.data)
      const error = LivestockApiError.fromResponse(result.response, result.error, 'POST /api/v1/tokens/refresh')
      // 401: this session is over (the token was used, expired or revoked). Anything else (403 for an
      // inactive account, 429 or 503 beyond the retry bounds, ...) is the caller's to see; the refresh token
      // is kept, since a refresh that did not happen can still be made.
      if (error.status !== 401) throw error
      this.#current = undefined
    }
    return this.#store(await this.#signIn())
  }

  async #signIn(): Promise<TokenBody> {
    const auth = this.#auth
    if ('email' in auth) {
      const result = await this.#api.POST('/api/v1/tokens/login', {
        body: { email: auth.email, password: auth.password },
      })
      if (result.data) return result.data
      throw LivestockApiError.fromResponse(result.response, result.error, 'POST /api/v1/tokens/login')
    }
    if ('integratorUID' in auth) {
      const body = {
        integratorUID: auth.integratorUID,
        ...(auth.clientSecret !== undefined ? { clientSecret: auth.clientSecret } : {}),
        ...(auth.expiresIn !== undefined ? { expiresIn: auth.expiresIn } : {}),
        refreshToken: true,
      }
      const result = await this.#api.POST('/api/v1/tokens', { body })
      if (result.data) return result.data
      throw LivestockApiError.fromResponse(result.response, result.error, 'POST /api/v1/tokens')
    }
    throw new Error('A fixed access token cannot be renewed')
  }

  #store(body: TokenBody): TokenSet {
    const { data } = body
    // expiresAt is on the service's clock; the envelope's timestamp tells how far this machine's differs.
    const serverNow = Date.parse(body.timestamp)
    const lifetimeMs = Math.max(0, data.expiresAt - (Number.isNaN(serverNow) ? Date.now() : serverNow))
    const tokens = {
      accessToken: data.accessToken,
      refreshToken: data.refreshToken,
      expiresAt: this.#clock() + lifetimeMs,
      subject: 'integratorUID' in data ? data.integratorUID : data.uid,
    }
    this.#current = { ...tokens, lifetimeMs }
    return tokens
  }
}
