// A client that stops reading its response leaves the response's bytes queued in the service, for as long as
// the connection stays open. Node's socket inactivity timeout (Fastify's connectionTimeout) would close it,
// but Node re-arms that timer on every read and write of every request, a cost every request pays
// (docs/performance.md). The other slow clients are bounded elsewhere: the request's headers and body by
// Node's headersTimeout and requestTimeout, an idle keep-alive connection by its keep-alive timeout. So a sweep
// looks at the open connections instead, and closes one whose queued bytes have not moved for `stallMs`. They
// move when a write completes, the grain of Node's timer too: a response written as one piece must reach the
// client within stallMs, a streamed one piece by piece.
import type { Server } from 'node:http'
import type { Socket } from 'node:net'

interface Progress {
  delivered: number
  since: number
}

/** Bytes of completed writes: `bytesWritten` counts every byte written to the socket, `writableLength` those of writes not completed. */
export const deliveredBytes = (socket: Socket): number => (socket.bytesWritten ?? 0) - socket.writableLength

/** Starts the sweep; it stops when the server closes. */
export function closeStalledConnections(
  server: Server,
  { stallMs, everyMs, now = Date.now }: { stallMs: number; everyMs: number; now?: () => number },
) {
  const open = new Map<Socket, Progress | undefined>()
  server.on('connection', (socket: Socket) => {
    open.set(socket, undefined)
    socket.once('close', () => open.delete(socket))
  })
  const sweep = setInterval(() => {
    const at = now()
    for (const [socket, seen] of open) {
      if (socket.writableLength === 0) {
        if (seen) open.set(socket, undefined)
        continue
      }
      const delivered = deliveredBytes(socket)
      if (!seen || seen.delivered !== delivered) open.set(socket, { delivered, since: at })
      else if (at - seen.since >= stallMs) socket.destroy()
    }
  }, everyMs)
  sweep.unref()
  server.once('close', () => clearInterval(sweep))
}
