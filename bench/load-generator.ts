// Load from a separate process: the scenario spawns this file, which sends keep-alive GETs over loopback
// and prints what it measured as JSON. Generating load inside the measured process would let the load
// loop share its event loop and CPU, and hide the cost of the server's own work.
import { spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'

export interface LoadSpec {
  port: number
  path: string
  headers: Record<string, string>
  total: number
  concurrency: number
}
export interface LoadResult {
  rps: number
  statuses: Record<number, number>
  p50Ms: number
  p99Ms: number
}

/** Sends `total` GET requests with `concurrency` in flight, from a child process; resolves with its figures. */
export function loadGet(
  port: number,
  path: string,
  headers: Record<string, string>,
  total: number,
  concurrency: number,
): Promise<LoadResult> {
  const spec: LoadSpec = { port, path, headers, total, concurrency }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(output) as LoadResult)
      else reject(new Error(`load generator exited with ${code}`))
    })
  })
}

async function generate({ port, path, headers, total, concurrency }: LoadSpec): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const statuses: Record<number, number> = {}
  const latencies: number[] = []
  let sent = 0
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const started = performance.now()
      const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers, agent }, (res) => {
        statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1
        res.resume()
        res.on('end', () => {
          latencies.push(performance.now() - started)
          resolve()
        })
      })
      req.on('error', reject)
      req.end()
    })
  const worker = async () => {
    while (sent < total) {
      sent++
      await one()
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return { rps: total / seconds, statuses, p50Ms: at(0.5), p99Ms: at(0.99) }
}

if (import.meta.main)
  process.stdout.write(JSON.stringify(await generate(JSON.parse(process.argv[2] ?? '{}') as LoadSpec)))
