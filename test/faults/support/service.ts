// The API as a real process (`node bin/serve.js`, as npm start runs it), for faults that need one: kill -9, SIGTERM, a restart
// on the same store. And a small HTTP client with keep-alive sockets, as a load balancer or SDK would use.
import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { TEST_JWT_SECRET } from '../../support/app.ts'
import { eventually } from '../../support/eventually.ts'
import { forgetProcess, recordProcess } from './scratch.ts'

const SERVER = join(import.meta.dirname, '../../../bin/serve.js')

export interface ServiceProcess {
  child: ChildProcess
  port: number
  /** Everything the process wrote (JSON log lines). */
  output: () => string
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>
}

/** Environment of a service under test: quiet limits, a fixed JWT key, a port of its own. */
export function serviceEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    JWT_SECRET: TEST_JWT_SECRET,
    PASSWORD_SCRYPT_LOG_N: '14',
    RATE_LIMIT_IP_MAX: '0',
    RATE_LIMIT_TOKENS_MAX: '0',
    AUTH_FAILURES_MAX: '0',
    QUOTA_PRO: '0',
    QUOTA_USER: '0',
    ...extra,
  }
}

export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [SERVER], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  recordProcess(child.pid, 'the API service')
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      forgetProcess(child.pid)
      resolve(code ?? signal ?? 'unknown')
    }),
  )
  const port = await Promise.race([
    eventually(
      () => /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1],
      (p) => p !== undefined,
      'the service to listen',
      { timeoutMs: 60_000, intervalMs: 20 },
    ),
    exited.then((code) => {
      throw new Error(`the service exited (${code}) before listening:\n${output}`)
    }),
  ])
  return { child, port: Number(port), output: () => output, exited }
}

/** kill -9, and wait until the process is gone. */
export async function killHard(service: ServiceProcess): Promise<void> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL')
  await service.exited
}

export interface HttpResult {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
  ms: number
}

export function keepAliveAgent(maxSockets = 8): Agent {
  return new Agent({ keepAlive: true, maxSockets })
}

/** One request; rejects when the connection fails (refused, reset, closed before the answer). */
export function call(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number; onSent?: () => void } = {},
): Promise<HttpResult> {
  const started = performance.now()
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers },
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let body: unknown = text
          try {
            body = JSON.parse(text)
          } catch {
            /* not JSON: kept as text */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - started })
        })
      },
    )
    // 'finish': the whole request has been handed to the operating system, so the server can read it.
    if (options.onSent) req.once('finish', options.onSent)
    req.on('timeout', () =>
      req.destroy(new Error(`no answer to ${method} ${path} within ${options.timeoutMs ?? 30_000} ms`)),
    )
    req.on('error', reject)
    req.end(payload)
  })
}
