// A TCP proxy in front of a server (PostgreSQL here) that a test can take down and bring back on
// the same port: a database outage on demand, without touching the shared server.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

export async function pausableProxy(targetPort: number, targetHost = '127.0.0.1') {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => { client.destroy(); upstream.destroy() })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const closeServer = () => new Promise<void>((resolve) => { if (server.listening) server.close(() => resolve()); else resolve() })
  return {
    port,
    /** Stops accepting and cuts every open connection. */
    down: async () => {
      const closed = closeServer()
      for (const socket of sockets) socket.destroy()
      await closed
    },
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await closeServer()
    },
  }
}
