// The live stream over a real port: events as they are created, resumed with Last-Event-ID, under the feed's access rules.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError } from '../support/assertions.ts'
import { bearer, createIntegrator, integratorToken, userToken } from '../support/fixtures.ts'
import { updateIntegrator } from '../../src/modules/integrators/integrators.repository.ts'
import { eventsFarm } from './farm.ts'
import { eventually } from '../support/eventually.ts'
import { MAX_STREAMS_PER_CALLER } from '../../src/modules/events/events.routes.ts'

let ctx: TestContext
let base: string
before(async () => {
  // A heartbeat each second: the stream's access is checked again at each (15 s by default).
  ctx = await createTestApp({ env: { EVENT_STREAM_HEARTBEAT_SECONDS: '1' } })
  base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
})
after(() => ctx.close())

const MINUTE = 60_000

interface Message {
  id: string
  event: string
  data: Record<string, unknown>
}

/** Opens a stream and collects its messages until `count` have come (or the time is up). */
async function readStream(url: string, headers: Record<string, string>, count: number, timeoutMs = 15_000) {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  const res = await fetch(url, { headers, signal: abort.signal })
  const messages: Message[] = []
  const opened = { status: res.status, type: res.headers.get('content-type') ?? '' }
  if (res.status !== 200) {
    clearTimeout(timer)
    return { ...opened, messages, body: await res.json() }
  }
  let buffer = ''
  const decoder = new TextDecoder()
  try {
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk, { stream: true })
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(': '))
            .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        )
        if (fields.data)
          messages.push({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) })
      }
      if (messages.length >= count) break
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err
  } finally {
    clearTimeout(timer)
    abort.abort()
  }
  return { ...opened, messages, body: undefined }
}

/** Opens a stream and reads it until the server ends it; the seconds it stayed open after `opened` resolved, or undefined if still open at the timeout. */
async function secondsUntilEnded(url: string, headers: Record<string, string>, opened: () => void, timeoutMs: number) {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  const res = await fetch(url, { headers, signal: abort.signal })
  assert.equal(res.status, 200)
  const started = Date.now()
  opened()
  try {
    for await (const _ of res.body!);
    return (Date.now() - started) / 1000
  } catch (err) {
    if (!abort.signal.aborted) throw err
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

describe('event stream', () => {
  it('sends events as they are created, and resumes after Last-Event-ID with nothing missed or twice', async () => {
    const farm = await eventsFarm(ctx)
    const url = `${base}${farm.base}/events/stream`
    const sow = await farm.animal(38.0)
    const start = Date.now() - 30 * MINUTE
    // A new farm has no events: after=0 makes the stream start from nothing whenever its request is read,
    // so a loaded machine that opens it after the first reading misses nothing.
    const live = readStream(`${url}?after=0`, farm.owner, 2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await farm.readings(sow.MAC, [38.45], start)
    await farm.readings(sow.MAC, [38.9], start + MINUTE)
    const first = await live
    assert.equal(first.status, 200)
    assert.match(first.type, /^text\/event-stream/)
    assert.deepEqual(
      first.messages.map((m) => m.event),
      ['temperature-yellow', 'temperature-red'],
    )
    assert.equal(first.messages[0]!.data.ID, first.messages[0]!.id)
    assert.equal(first.messages[1]!.data.MAC, sow.MAC)
    // Offline meanwhile: one more event; the client comes back with the last id it saw.
    await farm.readings(sow.MAC, [38.0], start + 2 * MINUTE)
    const resumed = await readStream(url, { ...farm.owner, 'last-event-id': first.messages[0]!.id }, 2)
    assert.deepEqual(
      resumed.messages.map((m) => m.event),
      ['temperature-red', 'temperature-normal'],
    )
    // The all-clear streams as the feed shows it: resolved by the service when it was created.
    const normal = resumed.messages[1]!.data
    assert.deepEqual([normal.status, normal.resolvedBy, normal.resolvedAt], ['resolved', 'service', normal.createdAt])
    const fromCursor = await readStream(`${url}?after=0`, farm.writer, 3)
    assert.equal(fromCursor.messages.length, 3)
  })

  it(`holds at most ${MAX_STREAMS_PER_CALLER} open streams per caller: one more is a 429 until one closes`, async () => {
    const farm = await eventsFarm(ctx)
    const url = `${base}${farm.base}/events/stream`
    const open: AbortController[] = []
    try {
      for (let i = 0; i < MAX_STREAMS_PER_CALLER; i++) {
        const abort = new AbortController()
        open.push(abort)
        const res = await fetch(url, { headers: farm.owner, signal: abort.signal })
        assert.equal(res.status, 200)
      }
      const refused = await readStream(url, farm.owner, 1)
      assert.equal(refused.status, 429)
      assert.equal(
        refused.body.error,
        `Too many open event streams: at most ${MAX_STREAMS_PER_CALLER} per caller; close one first`,
      )
      // Another caller of the same account is counted apart.
      const integrator = await readStream(url, farm.writer, 0, 1000)
      assert.equal(integrator.status, 200)
      open.pop()!.abort()
      const again = await eventually(
        async () => (await readStream(url, farm.owner, 0, 1000)).status,
        (status) => status === 200,
        'a slot freed by the closed stream',
      )
      assert.equal(again, 200)
    } finally {
      for (const abort of open) abort.abort()
    }
  })

  it("refuses another account's stream, an unlinked integrator and a malformed Last-Event-ID", async () => {
    const farm = await eventsFarm(ctx)
    const other = await eventsFarm(ctx)
    const url = `${base}${farm.base}/events/stream`
    const denied = await readStream(url, other.owner, 1)
    assert.equal(denied.status, 403)
    assert.equal(denied.body.error, "You do not have access to this user's data")
    const stranger = await createIntegrator(ctx, { tier: 'enterprise' })
    const strangerToken = bearer((await integratorToken(ctx, stranger.uid)).accessToken)
    const refused = await readStream(url, strangerToken, 1)
    assert.equal(refused.status, 403)
    assert.equal(refused.body.error, "Integrator does not have access to this user's data")
    const noToken = await readStream(url, {}, 1)
    assert.equal(noToken.status, 401)
    const bad = await readStream(url, { ...farm.owner, 'last-event-id': 'abc' }, 1)
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error, 'Validation failed')
    assertError(
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/users/${farm.user.uid}/events/stream?after=x`,
        headers: farm.owner,
      }),
      400,
      'Validation failed',
    )
  })

  it('ends at the next heartbeat once the caller may no longer read: a revoked token, a deactivated integrator, one whose read permission was withdrawn', async () => {
    const farm = await eventsFarm(ctx)
    const url = `${base}${farm.base}/events/stream`
    const user = await userToken(ctx, farm.user.email)
    const deactivated = await createIntegrator(ctx, { tier: 'enterprise', linkTo: [farm.user.uid] })
    const unread = await createIntegrator(ctx, { tier: 'enterprise', linkTo: [farm.user.uid] })
    const opened: Promise<void>[] = []
    const stream = (headers: Record<string, string>) => {
      let resolve!: () => void
      opened.push(new Promise<void>((r) => (resolve = r)))
      // A heartbeat every second: each must end within one, and a little.
      return secondsUntilEnded(url, headers, resolve, 10_000)
    }
    const streams = [
      stream(bearer(user.accessToken)),
      stream(bearer((await integratorToken(ctx, deactivated.uid)).accessToken)),
      stream(bearer((await integratorToken(ctx, unread.uid)).accessToken)),
    ]
    await Promise.all(opened)
    const logout = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/logout',
      headers: bearer(user.accessToken),
    })
    assert.equal(logout.statusCode, 200, logout.body)
    await updateIntegrator(ctx.database.db, deactivated.uid, { is_active: false })
    await updateIntegrator(ctx.database.db, unread.uid, { can_read: false })
    const [revokedFor, deactivatedFor, unreadFor] = await Promise.all(streams)
    assert.ok(revokedFor !== undefined, 'the stream of a revoked token ends')
    assert.ok(deactivatedFor !== undefined, "a deactivated integrator's stream ends")
    assert.ok(unreadFor !== undefined, 'the stream of an integrator that may no longer read ends')
  })

  it('reads no further ahead than its client takes: a reader that stops holds about a batch in the service, not the history', async () => {
    const farm = await eventsFarm(ctx)
    // 5,000 events of 2 kB notes: 11 MB of stream from Last-Event-ID 0.
    await sql`INSERT INTO events (uid, id, event_type, severity, mac, scale, value, t, evidence, episode_key, created_at, note)
      SELECT ${farm.user.uid}, g, 'temperature-red', 'critical', 'EE:00:00:00:00:01', 'C', 40, 0, '{}', 'k' || g, 0,
        ${'n'.repeat(2000)}
      FROM generate_series(1, 5000) g`.execute(ctx.database.db)
    const accepted = new Promise<Socket>((resolve) => ctx.app.server.once('connection', resolve))
    const url = new URL(`${base}${farm.base}/events/stream`)
    const client = connect(Number(url.port), url.hostname)
    client.pause()
    client.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${farm.owner.authorization}\r\n` +
        'Last-Event-ID: 0\r\n\r\n',
    )
    try {
      const socket = await accepted
      await new Promise((resolve) => setTimeout(resolve, 2000))
      assert.ok(socket.writableLength < 1_000_000, `${socket.writableLength} bytes queued for a reader that stopped`)
    } finally {
      client.destroy()
    }
  })

  it('checks access at each heartbeat while a slow reader catches up, not only once it has', async () => {
    const farm = await eventsFarm(ctx)
    const user = await userToken(ctx, farm.user.email)
    await sql`INSERT INTO events (uid, id, event_type, severity, mac, scale, value, t, evidence, episode_key, created_at, note)
      SELECT ${farm.user.uid}, g, 'temperature-red', 'critical', 'EE:00:00:00:00:01', 'C', 40, 0, '{}', 'k' || g, 0,
        ${'n'.repeat(2000)}
      FROM generate_series(1, 5000) g`.execute(ctx.database.db)
    const url = new URL(`${base}${farm.base}/events/stream`)
    const client = connect(Number(url.port), url.hostname)
    client.pause()
    client.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${user.accessToken}\r\n` +
        'Last-Event-ID: 0\r\n\r\n',
    )
    await new Promise((resolve) => setTimeout(resolve, 500))
    const logout = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/logout',
      headers: bearer(user.accessToken),
    })
    assert.equal(logout.statusCode, 200, logout.body)
    // Past the next heartbeat (each second here), the reader takes the rest.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    let received = ''
    client.setEncoding('utf8')
    // Until the response ends (its last chunk), or the connection closes.
    const ended = new Promise((resolve) => {
      client.on('data', (chunk: string) => {
        received += chunk
        if (received.endsWith('\r\n0\r\n\r\n')) resolve(undefined)
      })
      client.once('close', resolve)
    })
    client.resume()
    await ended
    client.destroy()
    const sent = received.match(/^id: /gm)?.length ?? 0
    assert.ok(sent < 5000, `${sent} of 5,000 events sent after the token was revoked`)
  })
})
