// A webhook receiver (or a browser's push service) on a free local port for the delivery tests: it keeps every request it gets and answers each
// with the next of `answers` (200 when none is left), so a test scripts failures, retries and Retry-After.
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http'

export interface ReceivedRequest {
  headers: IncomingHttpHeaders
  body: string
  /** The body's bytes (a Web Push message is encrypted). */
  raw: Buffer
}

export interface WebhookReceiver {
  /** Its URL, `http://127.0.0.1:<port>/hooks`: a subscription to it needs WEBHOOK_ALLOW_INSECURE=on. */
  url: string
  /** Every request received, in order. */
  received: ReceivedRequest[]
  /** The answers to give next, in order: a status and its headers. */
  answers: [status: number, headers?: OutgoingHttpHeaders][]
  close: () => void
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = []
  const answers: WebhookReceiver['answers'] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      received.push({ headers: req.headers, body: raw.toString(), raw })
      const [status, headers] = answers.shift() ?? [200]
      res.writeHead(status, headers ?? {}).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  assert.ok(address && typeof address === 'object')
  return { url: `http://127.0.0.1:${address.port}/hooks`, received, answers, close: () => server.close() }
}

/** What a test app needs to deliver to a local receiver promptly: plain http allowed, the outbox polled every 50 ms. */
export const LOCAL_DELIVERY_ENV = { WEBHOOK_ALLOW_INSECURE: 'on', DELIVERY_POLL_MS: '50' } as const
