// A local stand-in that speaks FCM HTTP v1 (an OAuth 2 token endpoint for the JWT bearer grant, and
// messages:send), with a service-account key whose token_uri points at it. The push tests use it, and so does the
// README's walk, run as a script:
//   npx node test/support/fcm-stand-in.ts [--port 4001]
// prints the two variables to start the service with, then each message it receives.
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

export interface PushMessage {
  authorization: string | undefined
  message: { token: string; notification: { title: string; body: string }; data: Record<string, string> }
}

export interface FcmStandIn {
  /** FCM_SERVICE_ACCOUNT_FILE and FCM_ENDPOINT for the service. */
  env: { FCM_SERVICE_ACCOUNT_FILE: string; FCM_ENDPOINT: string }
  sent: PushMessage[]
  /** Access tokens issued so far. */
  tokensIssued(): number
  close(): Promise<void>
}

const PROJECT = 'farm-app-stand-in'

/** FCM's answer for a registration token it no longer knows. */
const UNREGISTERED = {
  error: {
    code: 404,
    status: 'NOT_FOUND',
    details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
  },
}

export async function startFcmStandIn(
  options: {
    port?: number
    unregistered?: readonly string[]
    /** Tokens whose first message is answered 503, as FCM answers when it is briefly unavailable. */
    unavailableOnce?: readonly string[]
    onMessage?: (sent: PushMessage) => void
  } = {},
): Promise<FcmStandIn> {
  const sent: PushMessage[] = []
  const unavailable = new Set(options.unavailableOnce)
  let tokensIssued = 0
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (req.url === '/token') {
        if (!body.includes('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer'))
          return json(400, { error: 'unsupported_grant_type' })
        tokensIssued++
        return json(200, { access_token: `ya29.stand-in-${tokensIssued}`, expires_in: 3600, token_type: 'Bearer' })
      }
      const { message } = JSON.parse(body) as { message: PushMessage['message'] }
      if (options.unregistered?.includes(message.token)) return json(404, UNREGISTERED)
      if (unavailable.delete(message.token)) return json(503, { error: { code: 503, status: 'UNAVAILABLE' } })
      const push = { authorization: req.headers.authorization, message }
      sent.push(push)
      options.onMessage?.(push)
      json(200, { name: `projects/${PROJECT}/messages/${sent.length}` })
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const keyFile = join(mkdtempSync(join(tmpdir(), 'lsapi-fcm-')), 'service-account.json')
  writeFileSync(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      project_id: PROJECT,
      private_key_id: 'stand-in',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: `pusher@${PROJECT}.iam.gserviceaccount.com`,
      token_uri: `${base}/token`,
    }),
  )
  return {
    env: { FCM_SERVICE_ACCOUNT_FILE: keyFile, FCM_ENDPOINT: `${base}/v1/projects/${PROJECT}/messages:send` },
    sent,
    tokensIssued: () => tokensIssued,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '4001' } } })
  const standIn = await startFcmStandIn({
    port: Number(values.port),
    onMessage: ({ message }) =>
      console.log(`push to ${message.token}: ${message.notification.title}: ${message.notification.body}`),
  })
  for (const [name, value] of Object.entries(standIn.env)) console.log(`export ${name}=${value}`)
}
