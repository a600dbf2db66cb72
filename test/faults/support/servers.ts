// Throwaway PostgreSQL and Redis servers for the fault tests: each in a temp folder, on a free port, owned
// by the test that starts it, so that it can be stopped, killed or frozen (SIGSTOP) without touching the
// machine's shared services. Every handle's `cleanup` thaws and stops its server whatever state it is in.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import pg from 'pg'
import { forgetProcess, recordProcess, scratchDir } from './scratch.ts'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** The newest installed PostgreSQL's bin folder (Debian layout: /usr/lib/postgresql/<major>/bin). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql'
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => /^\d+$/.test(d))
        .sort((a, b) => Number(b) - Number(a))
    : []
  const found = majors.map((m) => join(root, m, 'bin')).find((dir) => existsSync(join(dir, 'initdb')))
  if (!found) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin')
  return found
}

/** PostgreSQL refuses to run as root: as root, its tools run as the postgres user. */
function asPostgres(command: string, args: string[]) {
  const asRoot = process.getuid?.() === 0
  const result = spawnSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, {
    encoding: 'utf8',
    timeout: 60_000,
  })
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`)
  return result.stdout
}

function postgresUid(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
  const [, , uid, gid] = line?.split(':') ?? []
  if (uid === undefined || gid === undefined)
    throw new Error('running as root but there is no postgres user to run PostgreSQL as')
  return { uid: Number(uid), gid: Number(gid) }
}

export interface PrivatePostgres {
  port: number
  /** Superuser URL of a database on it. */
  url: (database?: string) => string
  query: (text: string, database?: string) => Promise<pg.QueryResult>
  /** `pg_ctl stop -m immediate`: the server dies at once, as in a crash. */
  stopImmediate: () => void
  start: () => void
  /** SIGSTOP the postmaster and every backend: the server hangs with its sockets open. */
  freeze: () => void
  thaw: () => void
  cleanup: () => void
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin()
  const dir = scratchDir('postgres')
  const owner = postgresUid()
  if (owner) chownSync(dir, owner.uid, owner.gid)
  const data = join(dir, 'data')
  asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'])
  const port = await freePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`
  const pgCtl = (...args: string[]) => asPostgres(join(bin, 'pg_ctl'), ['-D', data, ...args])
  let frozen: number[] = []
  const processes = (): number[] => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number)
    return [postmaster, ...children]
  }
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, sig)
      } catch {
        /* gone */
      }
    }
  }
  const handle: PrivatePostgres = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    query: async (text, database) => {
      const client = new pg.Client({ connectionString: handle.url(database), connectionTimeoutMillis: 5000 })
      await client.connect()
      try {
        return await client.query(text)
      } finally {
        await client.end()
      }
    },
    start: () => {
      pgCtl('-l', join(dir, 'log'), '-w', '-t', '30', '-o', options, 'start')
    },
    stopImmediate: () => {
      pgCtl('-m', 'immediate', '-w', 'stop')
    },
    freeze: () => {
      frozen = processes()
      signal(frozen, 'SIGSTOP')
    },
    thaw: () => {
      signal(frozen, 'SIGCONT')
      frozen = []
    },
    cleanup: () => {
      handle.thaw()
      try {
        handle.stopImmediate()
      } catch {
        /* not running */
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
  handle.start()
  return handle
}

export interface PrivateRedis {
  port: number
  url: string
  kill: () => Promise<void>
  start: () => Promise<void>
  freeze: () => void
  thaw: () => void
  /** FLUSHALL: no counters left. */
  flushAll: () => Promise<void>
  cleanup: () => Promise<void>
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  let frozen = false
  const handle: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    start: async () => {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      )
      recordProcess(child.pid, `redis-server on port ${port}`)
      const deadline = Date.now() + 10_000
      while (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() !== 'PONG') {
        if (Date.now() > deadline) throw new Error('the private redis-server did not start')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    kill: async () => {
      const dying = child
      if (!dying || dying.exitCode !== null || dying.signalCode !== null) return
      const exited = new Promise((resolve) => dying.once('exit', resolve))
      dying.kill('SIGKILL')
      await exited
      forgetProcess(dying.pid)
    },
    freeze: () => {
      child?.kill('SIGSTOP')
      frozen = true
    },
    thaw: () => {
      if (frozen) child?.kill('SIGCONT')
      frozen = false
    },
    flushAll: async () => {
      const result = spawnSync('redis-cli', ['-p', String(port), 'flushall'], { encoding: 'utf8', timeout: 5000 })
      if (result.stdout.trim() !== 'OK') throw new Error(`FLUSHALL failed: ${result.stdout}${result.stderr}`)
    },
    cleanup: async () => {
      handle.thaw()
      await handle.kill()
    },
  }
  await handle.start()
  return handle
}

export interface PrivateMosquitto {
  port: number
  url: string
  /** Its folder: the config, and the password file and ACL the shipped config names. */
  dir: string
  /** What the broker logged. */
  log: () => string
  /** SIGHUP: the broker reads its password file and ACL again; resolves once it has. */
  reload: () => Promise<void>
  cleanup: () => Promise<void>
}

const SHIPPED_MOSQUITTO = join(import.meta.dirname, '../../../deploy/mosquitto')

/**
 * A mosquitto of the test's own on a free port, with the shipped config (deploy/mosquitto/mosquitto.conf: its
 * paths pointed at the broker's folder, `settings` appended, which win) or, with `shipped: false`, `settings` only.
 * `prepare` writes files into the folder (a password file, an ACL) before the broker starts.
 */
export async function startPrivateMosquitto(
  options: { shipped?: boolean; settings?: string[]; prepare?: (dir: string) => void } = {},
): Promise<PrivateMosquitto> {
  const dir = scratchDir('mosquitto')
  const port = await freePort()
  const shipped =
    options.shipped === false
      ? []
      : readFileSync(join(SHIPPED_MOSQUITTO, 'mosquitto.conf'), 'utf8')
          .split('\n')
          .filter((line) => !line.startsWith('listener '))
          .map((line) => line.replaceAll('deploy/mosquitto/', `${dir}/`))
  const lines = [
    `listener ${port} 127.0.0.1`,
    ...shipped,
    // As root it would switch to the mosquitto user, which cannot read this folder.
    ...(process.getuid?.() === 0 ? ['user root'] : []),
    'log_dest stderr',
    'log_type all',
    ...(options.settings ?? []),
  ]
  writeFileSync(join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`)
  options.prepare?.(dir)
  const child = spawn('mosquitto', ['-c', join(dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'pipe'] })
  recordProcess(child.pid, `mosquitto on port ${port}`)
  let log = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-200_000)
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + 10_000
  while (!log.includes(`Opening ipv4 listen socket on port ${port}`)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the private mosquitto did not start:\n${log}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    dir,
    log: () => log,
    reload: async () => {
      const reloads = () => log.split('Reloading config').length
      const before = reloads()
      child.kill('SIGHUP')
      const deadline = Date.now() + 5000
      while (reloads() === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
      // The log line comes first; the files are read right after it.
      await new Promise((resolve) => setTimeout(resolve, 50))
    },
    cleanup: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL')
        await exited
      }
      forgetProcess(child.pid)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
