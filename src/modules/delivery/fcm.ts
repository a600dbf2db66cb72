// Push notifications through Firebase Cloud Messaging's HTTP v1 API (messages:send), authorised with a
// service-account key by google-auth-library (OAuth 2, JWT bearer grant). The endpoints are configurable so
// tests and a farm's own relay can stand in for Google's; the token request is sent where the key's
// token_uri says, which for Google's keys is Google's token endpoint.
import { readFileSync } from 'node:fs'
import type { JWT } from 'google-auth-library'

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'

export interface PushMessage {
  token: string
  title: string
  body: string
  /** String values only, as FCM requires. */
  data: Record<string, string>
  /** Collapses repeats of one event on the phone (a retry after a partial failure). */
  collapseKey: string
}

/** ok; unregistered: the token is dead, remove it; retry: try the delivery again later; invalid: drop this token's message. */
export type PushResult =
  { kind: 'ok' } | { kind: 'unregistered' } | { kind: 'retry'; error: string } | { kind: 'invalid'; error: string }

export interface PushSender {
  send(message: PushMessage): Promise<PushResult>
}

interface ServiceAccountKey {
  client_email: string
  private_key: string
  project_id: string
  token_uri?: string
}

/** The key, or an error naming the variable and what is wrong with the file: read at start, shown to the operator. */
function readServiceAccountKey(file: string): ServiceAccountKey {
  let key: Partial<ServiceAccountKey>
  try {
    key = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServiceAccountKey>
  } catch (err) {
    throw new Error(
      `FCM_SERVICE_ACCOUNT_FILE ${file} cannot be read as a service-account key: ${(err as Error).message}`,
    )
  }
  const missing = (['client_email', 'private_key', 'project_id'] as const).filter((f) => typeof key[f] !== 'string')
  if (missing.length > 0)
    throw new Error(`FCM_SERVICE_ACCOUNT_FILE ${file} is not a service-account key: it lacks ${missing.join(', ')}`)
  return key as ServiceAccountKey
}

export function createFcmSender(options: {
  serviceAccountFile: string
  endpoint?: string | undefined
  timeoutMs: number
}): PushSender {
  const key = readServiceAccountKey(options.serviceAccountFile)
  // google-auth-library is loaded with the first message, not at start (docs/runtime.md: the service's memory).
  let auth: Promise<JWT> | undefined
  const authorize = async () => {
    const { JWT } = await import('google-auth-library')
    const client = new JWT({
      email: key.client_email,
      key: key.private_key,
      scopes: [FCM_SCOPE],
      transporterOptions: { timeout: options.timeoutMs },
    })
    const tokenUri = key.token_uri
    if (tokenUri && tokenUri !== GOOGLE_TOKEN_URL) {
      // google-auth-library sends the JWT grant to Google's endpoint; a key for another issuer names its own.
      client.transporter.interceptors.request.add({
        resolved: async (request) => {
          if (String(request.url) === GOOGLE_TOKEN_URL) request.url = new URL(tokenUri)
          return request
        },
      })
    }
    return client
  }
  const endpoint = options.endpoint ?? `https://fcm.googleapis.com/v1/projects/${key.project_id}/messages:send`

  return {
    async send(message) {
      let accessToken: string | null | undefined
      try {
        auth ??= authorize()
        accessToken = (await (await auth).getAccessToken()).token
      } catch (err) {
        return { kind: 'retry', error: `OAuth token: ${(err as Error).message}` }
      }
      let response: Response
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            message: {
              token: message.token,
              notification: { title: message.title, body: message.body },
              data: message.data,
              android: { collapse_key: message.collapseKey, priority: 'high' },
              apns: { headers: { 'apns-collapse-id': message.collapseKey.slice(0, 64) } },
            },
          }),
          signal: AbortSignal.timeout(options.timeoutMs),
        })
      } catch (err) {
        return { kind: 'retry', error: (err as Error).message }
      }
      if (response.ok) return { kind: 'ok' }
      const text = await response.text().catch(() => '')
      // FCM v1 names the reason in error.details[].errorCode: UNREGISTERED (the app was removed or the token
      // expired), INVALID_ARGUMENT (a malformed token among others), QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL.
      if (/UNREGISTERED/.test(text)) return { kind: 'unregistered' }
      if (response.status === 400) return { kind: 'invalid', error: text.slice(0, 300) }
      return { kind: 'retry', error: `FCM ${response.status}: ${text.slice(0, 300)}` }
    },
  }
}
