// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// closeStalledConnections (src/http/stalled-connections.ts): a connection whose client stops reading its
// response is closed once no write to it has completed for stallMs; a client that reads in bursts with
// pauses, and an idle keep-alive connection, are left alone. A bare node:http server over a real port.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { closeStalledConnections } from '../../src/http/stalled-connections.ts'

// Larger than what the kernel's socket buffers on both ends of a loopback connection hold.
const BIG = Buffer.alloc(48 * 1024 * 1024, 'x')
const PIECE = 1024 * 1024
const STALL_MS = 400

let server: Server
let port: number
const serverSockets: Socket[] = []

before(async () => {
  server = createServer((req, res) => {
    serverSockets.push(res.socket!)
    if (req.url === '/whole') return void res.end(BIG)
    if (req.url !== '/pieces') return void res.end('small')
    // Written a piece at a time, as a stream is: each write completes as the client takes it.
    let at = 0
    const more = () => {
      while (at < BIG.length) {
        const piece = BIG.subarray(at, (at += PIECE))
        if (at >= BIG.length) return void res.end(piece)
        if (!res.write(piece)) return void res.once('drain', more)
      }
    }
    more()
  })
  closeStalledConnections(server, { stallMs: STALL_MS, everyMs: 50 })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as { port: number }).port
})
after(() => {
  server.closeAllConnections()
  server.close()
})

/** Sends a keep-alive GET; resolves with the client's socket and the server's end of it. */
async function request(path: string): Promise<{ client: Socket; served: Socket }> {
  const count = serverSockets.length
  const client = connect(port, '127.0.0.1')
  client.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`)
  while (serverSockets.length === count) await new Promise((resolve) => setTimeout(resolve, 5))
  return { client, served: serverSockets.at(-1)! }
}

describe('closeStalledConnections', () => {
  it('closes a connection whose client stopped reading its response', async () => {
    const { client, served } = await request('/whole')
    client.pause()
    const started = Date.now()
    await once(served, 'close')
    const ms = Date.now() - started
    assert.ok(ms >= STALL_MS - 60 && ms < STALL_MS + 2000, `closed after ${ms} ms`)
    client.destroy()
  })

  it('leaves a client that reads in bursts, with pauses shorter than the stall time, to the end of its response', async () => {
    const { client, served } = await request('/pieces')
    let received = 0
    let closedEarly = false
    served.once('close', () => {
      closedEarly = received < BIG.length
    })
    // Each burst reads two pieces' worth, so at least one of the server's writes completes, and then the client
    // pauses for a quarter of the stall time. Bursts timed instead (20 ms) read the whole response at once on a
    // fast machine, and too little for a write to complete on a loaded one.
    let burstEnd = 0
    let burstDone = () => {}
    client.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (received >= burstEnd) {
        client.pause()
        burstDone()
      }
    })
    client.pause()
    const started = Date.now()
    let bursts = 0
    while (received < BIG.length && !closedEarly) {
      burstEnd = Math.min(received + 2 * PIECE, BIG.length)
      await new Promise<void>((resolve) => {
        burstDone = resolve
        served.once('close', () => resolve())
        client.resume()
      })
      bursts += 1
      await new Promise((resolve) => setTimeout(resolve, STALL_MS / 4))
    }
    assert.equal(closedEarly, false, `closed after ${received} bytes`)
    assert.ok(bursts > 8, `read in ${bursts} bursts`)
    assert.ok(Date.now() - started > STALL_MS, 'the response took longer than the stall time')
    client.destroy()
  })

  it('leaves an idle keep-alive connection open', async () => {
    const { client, served } = await request('/small')
    await once(client, 'data')
    await new Promise((resolve) => setTimeout(resolve, STALL_MS * 3))
    assert.equal(served.destroyed, false)
    client.write('GET /small HTTP/1.1\r\nHost: x\r\n\r\n')
    const [again] = (await once(client, 'data')) as [Buffer]
    assert.match(again.toString(), /^HTTP\/1.1 200/)
    client.destroy()
  })
})
