// A mail server for tests (smtp-server): accepts every message on a free local port and keeps it, so a test reads
// what the service mailed as a receiver would.
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'

export interface ReceivedMail {
  to: string[]
  /** The whole message as sent: headers and body. */
  raw: string
  /** The body, quoted-printable decoded. */
  text: string
}

/** The body of a single-part message, as its reader sees it. */
function bodyText(raw: string): string {
  const split = raw.indexOf('\r\n\r\n')
  const headers = raw.slice(0, split)
  const body = raw.slice(split + 4)
  if (!/^Content-Transfer-Encoding: quoted-printable/im.test(headers)) return body
  const bytes = body
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

export interface TestMailServer {
  url: string
  received: ReceivedMail[]
  /** Answers every message after this with a permanent failure (a refusing mail server). */
  refuse(on: boolean): void
  close(): Promise<void>
}

export async function startMailServer(): Promise<TestMailServer> {
  const received: ReceivedMail[] = []
  let refusing = false
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        if (refusing) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }))
        const raw = Buffer.concat(chunks).toString()
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text: bodyText(raw) })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse: (on) => {
      refusing = on
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
