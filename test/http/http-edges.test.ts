// What reaches the service outside a well-formed request still gets the envelope, slow clients are cut at
// REQUEST_TIMEOUT_MS, shutdown closes keep-alive sockets as their requests end, and logs keep error level
// for faults an operator must act on. Over a real port where the HTTP parser is what is tested.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { ok } from '../../src/http/envelope.ts'

let ctx: TestContext
let port: number
const logs: { level: number; msg: string }[] = []
let releaseSlow: () => void = () => {}
// More than the kernel's socket buffers on both ends of a loopback connection hold.
const LARGE = Buffer.alloc(48 * 1024 * 1024, 'x')

before(async () => {
  ctx = await createTestApp({
    env: { REQUEST_TIMEOUT_MS: '1500' },
    logger: {
      level: 'info',
      stream: new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) logs.push(JSON.parse(line))
          done()
        },
      }),
    },
    extend: (api) => {
      api.get('/probe/large', { config: { access: 'public' }, compress: false }, async (_req, reply) =>
        reply.type('application/octet-stream').send(LARGE),
      )
      api.get('/probe/slow', { config: { access: 'public' } }, async () => {
        await new Promise<void>((resolve) => {
          releaseSlow = resolve
        })
        return ok({ slow: true })
      })
    },
  })
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  port = (ctx.app.server.address() as { port: number }).port
})
after(() => ctx.close())

/** Writes raw bytes and collects everything the server sends until it closes the socket. */
function rawExchange(bytes: string, { end = false } = {}): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes)
      if (end) socket.end()
    })
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk.toString()
    })
    socket.on('close', () => resolve({ text, ms: Date.now() - started }))
    socket.on('error', reject)
    socket.setTimeout(20_000, () => socket.destroy())
  })
}

function envelopeOf(text: string) {
  const [head, body] = text.split('\r\n\r\n')
  return {
    status: Number(head!.split(' ')[1]),
    head: head!,
    body: JSON.parse(body!) as { success: boolean; error: string; timestamp: string },
  }
}

describe('requests the router or the HTTP parser refuses', () => {
  it('answers bad %-encoding with 400 in the envelope', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/%E0%A4%A/animals' })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().success, false)
    assert.equal(res.json().error, 'The URL is not valid: a %-escape in it does not decode')
    assert.ok(res.headers['x-request-id'])
  })

  it('answers an over-long path segment with 414 in the envelope', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${'u'.repeat(300)}/animals` })
    assert.equal(res.statusCode, 414)
    assert.equal(res.json().error, 'A segment of the URL path is too long')
  })

  it('answers headers over the size limit with 431 in the envelope', async () => {
    const { text } = await rawExchange(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    const res = envelopeOf(text)
    assert.equal(res.status, 431)
    assert.deepEqual(
      [res.body.success, res.body.error],
      [false, 'The request headers are larger than the server accepts'],
    )
  })

  it('answers a request that is not HTTP with 400 in the envelope', async () => {
    const res = envelopeOf((await rawExchange('HELLO THERE\r\n\r\n')).text)
    assert.equal(res.status, 400)
    assert.equal(res.body.error, 'The request is not valid HTTP')
  })

  it('cuts a client that sends its headers too slowly at REQUEST_TIMEOUT_MS, with 408 in the envelope', async () => {
    const { text, ms } = await rawExchange('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n')
    const res = envelopeOf(text)
    assert.equal(res.status, 408)
    // 1.5 s configured and checked every second: well before Node's own 60 s (or 30 s plus its 30 s check interval).
    assert.ok(ms < 10_000, `cut after ${ms} ms`)
  })
})

describe('a client that stops reading', () => {
  it('has its connection closed once its response has not moved for REQUEST_TIMEOUT_MS', async () => {
    const socket = connect(port, '127.0.0.1')
    socket.write('GET /api/v1/probe/large HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n')
    socket.pause()
    // REQUEST_TIMEOUT_MS is 1500 here, the sweep runs every second: closed well before 4 s.
    await new Promise((resolve) => setTimeout(resolve, 4000))
    let received = 0
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length
    })
    socket.on('error', () => {})
    socket.resume()
    await once(socket, 'close')
    assert.ok(received < LARGE.length, `received ${received} of ${LARGE.length} bytes`)
  })
})

describe('logs', () => {
  it('logs a 501 of an unconfigured feature as a refusal, not as a fault', async () => {
    logs.length = 0
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/verify-id-token',
      payload: { idToken: 'a.b.c' },
    })
    assert.equal(res.statusCode, 501)
    assert.deepEqual(
      logs.filter((l) => l.level >= 50),
      [],
    )
  })

  it('logs a client that hangs up mid-upload at info, not as a store outage', async () => {
    logs.length = 0
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'POST /api/v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"integ',
        )
        setTimeout(() => {
          socket.destroy()
          setTimeout(resolve, 300)
        }, 100)
      })
    })
    assert.deepEqual(
      logs.filter((l) => l.level >= 50).map((l) => l.msg),
      [],
    )
    assert.ok(
      logs.some((l) => l.msg === 'client closed the connection mid-request'),
      JSON.stringify(logs.map((l) => l.msg)),
    )
  })
})

describe('shutdown', () => {
  it('closes keep-alive sockets as their requests end and answers requests that arrive meanwhile 503 with Retry-After', async () => {
    // A request in flight on one connection, and the first half of another request on a second one.
    const inFlight = rawExchange('GET /api/v1/probe/slow HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n')
    let lateSocketText = ''
    const late = connect(port, '127.0.0.1')
    const lateClosed = new Promise<void>((resolve) => late.on('close', () => resolve()))
    late.on('data', (chunk) => {
      lateSocketText += chunk.toString()
    })
    await new Promise<void>((resolve) =>
      late.on('connect', () => {
        late.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n')
        resolve()
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 100))

    const closed = ctx.app.close()
    await new Promise((resolve) => setTimeout(resolve, 100))
    late.write('Connection: keep-alive\r\n\r\n')
    releaseSlow()
    const first = envelopeOf((await inFlight).text)
    assert.equal(first.status, 200)
    assert.match(first.head, /\r\nconnection: close/i, 'the in-flight response closes its keep-alive socket')
    await lateClosed
    const second = envelopeOf(lateSocketText)
    assert.equal(second.status, 503)
    assert.match(second.head, /\r\nretry-after: 1/i)
    assert.deepEqual(
      [second.body.success, second.body.error],
      [false, 'The service is shutting down: retry, another instance will answer'],
    )
    await closed
  })
})
