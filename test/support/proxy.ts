// A TCP proxy in front of a server (PostgreSQL, Redis) that a test can take down and bring back on the
// same port, or freeze: an outage or a hung server on demand, without touching the shared server.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

interface Pair {
  client: Socket
  upstream: Socket
}

export async function pausableProxy(targetPort: number, targetHost = '127.0.0.1') {
  const sockets = new Set<Socket>()
  const pairs = new Set<Pair>()
  let frozen = false
  const flow = ({ client, upstream }: Pair) => {
    client.pipe(upstream).pipe(client)
  }
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost)
    const pair = { client, upstream }
    pairs.add(pair)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => {
        sockets.delete(socket)
        pairs.delete(pair)
      })
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    if (!frozen) flow(pair)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const closeServer = () =>
    new Promise<void>((resolve) => {
      if (server.listening) server.close(() => resolve())
      else resolve()
    })
  return {
    port,
    /** Stops accepting and cuts every open connection. */
    down: async () => {
      const closed = closeServer()
      for (const socket of sockets) socket.destroy()
      await closed
    },
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    /** A hung server: connections stay open and new ones are accepted, but nothing goes through either way. */
    freeze: () => {
      frozen = true
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        client.pause()
        upstream.pause()
      }
    },
    /** Everything held back goes through, as when a stopped server is continued. */
    thaw: () => {
      frozen = false
      for (const pair of pairs) flow(pair)
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await closeServer()
    },
  }
}
