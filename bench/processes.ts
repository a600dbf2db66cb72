// The processes `npm run bench` measures: the service as it runs in production (`npm start`: node with the
// service's V8 heap flags, src/runtime-flags.ts, then bin/serve.js) and
// the bare baseline (bench/bare-server.ts), each a child process of its own on a loopback port, with its
// memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process'
import { openSync, closeSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../test/faults/support/servers.ts'
import { SERVICE_ENVIRONMENT, SERVICE_NODE_FLAGS } from '../src/runtime-flags.ts'

const SERVICE = join(import.meta.dirname, '../bin/serve.js')
const BARE = join(import.meta.dirname, 'bare-server.ts')
const FASTIFY_HELLO = join(import.meta.dirname, 'fastify-hello.ts')

export interface Memory {
  rssMb: number
  peakMb: number
}

/** VmRSS (resident now) and VmHWM (the peak resident so far) of a process, in MB. */
export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}

/** CPU time the process has used so far, in clock ticks (user + system). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12])
}

export interface Child {
  name: string
  port: number
  pid: number
  memory: () => Memory
  /** Waits until the process has used (almost) no CPU for a while: its start-up jobs are done. */
  settle: (maxMs: number) => Promise<void>
  stop: () => Promise<void>
}

function wrap(name: string, child: ChildProcess, port: number, logFd?: number): Child {
  const pid = child.pid!
  let exited = false
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true
      resolve()
    }),
  )
  return {
    name,
    port,
    pid,
    memory: () => memoryOf(pid),
    async settle(maxMs) {
      const deadline = Date.now() + maxMs
      let quiet = 0
      let last = cpuTicks(pid)
      while (Date.now() < deadline && quiet < 3) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        const now = cpuTicks(pid)
        quiet = now - last <= 2 ? quiet + 1 : 0
        last = now
      }
    },
    async stop() {
      if (!exited) {
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
        await exit
        clearTimeout(timer)
      }
      if (logFd !== undefined) closeSync(logFd)
    },
  }
}

async function waitForHttp(port: number, path: string, child: ChildProcess, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  const exited: { code?: number } = {}
  child.once('exit', (code) => {
    exited.code = code ?? -1
  })
  for (;;) {
    if (exited.code !== undefined) throw new Error(`${what} exited (${exited.code}) before answering`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`)
      await res.arrayBuffer()
      if (res.ok) return
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${path} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export interface ServiceOptions {
  name: string
  env: Record<string, string>
  /** Where the service's log goes (a file). */
  logFile: string
  /** A folder for a V8 CPU profile of the whole run (`--cpu-prof`), written when the service exits. */
  cpuProfileDir?: string | undefined
  /** Node options after the service's own (a later V8 flag wins: `--max-semi-space-size=16` tries another size). */
  nodeFlags?: string[] | undefined
}

/** The node arguments of the service as `npm start` runs it, then `extra` flags. */
export function serviceArgs(extra: string[] = []): string[] {
  return [...SERVICE_NODE_FLAGS, ...extra, SERVICE]
}

/** `node <the service's flags> bin/serve.js` on a free loopback port; resolves once /api/v1/health answers. */
export async function startService({
  name,
  env,
  logFile,
  cpuProfileDir,
  nodeFlags = [],
}: ServiceOptions): Promise<Child> {
  const port = await freePort()
  const fd = openSync(logFile, 'a')
  const args = serviceArgs([...nodeFlags, ...(cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [])])
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...SERVICE_ENVIRONMENT, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', fd, fd],
  })
  try {
    await waitForHttp(port, '/api/v1/health', child, `service ${name} (log: ${logFile})`, 120_000)
  } catch (err) {
    child.kill('SIGKILL')
    closeSync(fd)
    throw err
  }
  return wrap(name, child, port, fd)
}

/** The bare baseline on a free loopback port, on PostgreSQL (databaseUrl) or a copy of an embedded data folder. */
export function startBare(store: { databaseUrl: string } | { dataDir: string }, logFile: string): Promise<Child> {
  return startScript(
    'bare',
    BARE,
    'databaseUrl' in store ? { BARE_DATABASE_URL: store.databaseUrl } : { BARE_DATA_DIR: store.dataDir },
    logFile,
  )
}

/** Fastify with one route and nothing else (fastify-hello.ts), the reference between the bare hello and /health. */
export function startFastifyHello(logFile: string): Promise<Child> {
  return startScript('fastify-hello', FASTIFY_HELLO, {}, logFile)
}

/** A script that prints {"port":N} once listening and answers GET /hello. */
async function startScript(name: string, script: string, env: Record<string, string>, logFile: string): Promise<Child> {
  const fd = openSync(logFile, 'a')
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', fd],
  })
  const port = await new Promise<number>((resolve, reject) => {
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const line = /^\{"port":(\d+)\}$/m.exec(output)
      if (line) resolve(Number(line[1]))
    })
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening (log: ${logFile})`)))
  })
  child.stdout!.resume()
  await waitForHttp(port, '/hello', child, name, 30_000)
  return wrap(name, child, port, fd)
}
