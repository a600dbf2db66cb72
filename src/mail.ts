// Outgoing e-mail over SMTP (nodemailer), for the few messages that must reach a person's mailbox rather than an
// integrator: today the confirmation of a new e-mail address (docs/users.md#changing-the-e-mail-address).
import type { Transporter } from 'nodemailer'
import type { MailConfig } from './config.ts'

export interface Mail {
  to: string
  subject: string
  text: string
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects when it did not. */
  send(mail: Mail): Promise<void>
  close(): void
}

/** A slow mail server fails the request that waits on it rather than holding it. */
const SMTP_TIMEOUT_MS = 10_000

/** The service's mailer, or undefined when no SMTP server is configured. */
export function createMailer(config: MailConfig): Mailer | undefined {
  if (config.smtpUrl === undefined) return undefined
  const smtpUrl = config.smtpUrl
  // nodemailer is loaded with the first message, not at start: most processes never send one (docs/runtime.md).
  let transport: Promise<Transporter> | undefined
  const connect = async () => {
    const { createTransport } = await import('nodemailer')
    return createTransport({
      url: smtpUrl,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    })
  }
  return {
    async send(mail) {
      transport ??= connect()
      await (await transport).sendMail({ from: config.from, ...mail })
    },
    close: () => void transport?.then((opened) => opened.close()),
  }
}
