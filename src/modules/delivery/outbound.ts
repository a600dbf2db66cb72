// One outbound POST of a webhook or a Web Push message, guarded against server-side request forgery: https only, and only to public
// addresses, unless the operator allows otherwise (WEBHOOK_ALLOW_INSECURE). The name is resolved once and the
// connection goes to the address that was checked, so a DNS answer that changes in between cannot steer it
// inside. A receiver that hangs is cut off after the timeout; its answer body is read up to 4 kB and dropped.
import { lookup } from 'node:dns/promises'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { isPublicAddress } from './delivery.rules.ts'

export interface OutboundOptions {
  timeoutMs: number
  /** Allow http:// and private, loopback and link-local addresses (tests, a farm's own network). */
  allowInsecure: boolean
}

export interface OutboundAnswer {
  status?: number
  retryAfter?: string
  error?: string
  latencyMs: number
}

export class RefusedTarget extends Error {}

/** Why a URL may not receive webhooks, or undefined when it may (the address is checked again at sending). */
export function refusedUrl(raw: string, allowInsecure: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return 'must use https'
  if (url.username || url.password) return 'must not carry credentials'
  if (!allowInsecure && url.hostname === 'localhost') return 'must not name a private, loopback or link-local address'
  const literal = url.hostname.replace(/^\[|\]$/g, '')
  if (!allowInsecure && /^[\d.]+$|:/.test(literal) && !isPublicAddress(literal))
    return 'must not name a private, loopback or link-local address'
  return undefined
}

async function resolveChecked(hostname: string, allowInsecure: boolean): Promise<{ address: string; family: number }> {
  const refused = new RefusedTarget(`${hostname} resolves to no public address`)
  let addresses: { address: string; family: number }[]
  try {
    addresses = await lookup(hostname.replace(/^\[|\]$/g, ''), { all: true, verbatim: true })
  } catch (err) {
    // Guarded, a name that does not resolve gets the same answer as one that resolves only inside: otherwise the
    // answer tells an integrator which internal names exist.
    if (allowInsecure) throw err
    throw refused
  }
  const usable = allowInsecure ? addresses : addresses.filter((a) => isPublicAddress(a.address))
  if (usable.length === 0) throw refused
  return usable[0]!
}

export function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: OutboundOptions,
): Promise<OutboundAnswer> {
  return post(target, body, { 'content-type': 'application/json', ...headers }, options)
}

/** POSTs `body` with `headers` (its content type among them) to `target`, guarded as above. */
export async function post(
  target: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: OutboundOptions,
): Promise<OutboundAnswer> {
  const started = performance.now()
  const latency = () => Math.round(performance.now() - started)
  const refused = refusedUrl(target, options.allowInsecure)
  if (refused) return { error: `URL ${refused}`, latencyMs: 0 }
  const url = new URL(target)
  let pinned: { address: string; family: number }
  try {
    pinned = await resolveChecked(url.hostname, options.allowInsecure)
  } catch (err) {
    return { error: (err as Error).message, latencyMs: latency() }
  }
  const lookupPinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) callback(null, [pinned])
    else callback(null, pinned.address, pinned.family)
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<OutboundAnswer>((resolve) => {
    const req = send(
      url,
      {
        method: 'POST',
        lookup: lookupPinned,
        headers: { 'content-length': String(Buffer.byteLength(body)), ...headers },
        timeout: options.timeoutMs,
        agent: false,
      },
      (res) => {
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > 4096) res.destroy()
        })
        const done = () =>
          resolve({
            status: res.statusCode,
            ...(typeof res.headers['retry-after'] === 'string' ? { retryAfter: res.headers['retry-after'] } : {}),
            latencyMs: latency(),
          })
        res.on('end', done)
        res.on('close', done)
      },
    )
    const deadline = setTimeout(
      () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    )
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)))
    req.on('error', (err) => resolve({ error: err.message, latencyMs: latency() }))
    req.on('close', () => clearTimeout(deadline))
    req.end(body)
  })
}
