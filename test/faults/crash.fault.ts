// kill -9 of the API process under write load, on each store: every write the API acknowledged is there
// after the restart, and a client that re-sends what was in flight when the process died (as it must,
// having no answer) stores nothing twice. Several kill/restart cycles per store. The readings are days old and
// the service packs closed hours every second meanwhile, so the kills land during ingestion and during packing,
// and the re-sent batches meet readings in both parts (docs/storage.md#readings).
import assert from 'node:assert/strict'
import type { Agent } from 'node:http'
import { rmSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { eventually } from '../support/eventually.ts'
import { startPrivatePostgres, type PrivatePostgres } from './support/servers.ts'
import { call, keepAliveAgent, killHard, serviceEnv, startService, type ServiceProcess } from './support/service.ts'
import {
  createAnimal,
  farmHeaders,
  packedReadings,
  seedFarm,
  storedReadingTimes,
  type StoreEnv,
} from './support/farm.ts'
import { scratchDir } from './support/scratch.ts'

const WRITERS = 8
const BATCH = 100
const CYCLES = 2
const LOAD_MS = 1500

interface Batch {
  times: number[]
}

describe('kill -9 under write load', () => {
  let postgres: PrivatePostgres
  const dirs: string[] = []
  before(async () => {
    postgres = await startPrivatePostgres()
  })
  after(() => {
    postgres?.cleanup()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  for (const kind of ['embedded', 'PostgreSQL'] as const) {
    it(`loses no acknowledged reading and stores none twice (${kind})`, async () => {
      let store: StoreEnv
      if (kind === 'PostgreSQL') {
        await postgres.query('CREATE DATABASE crash')
        store = { DATABASE_URL: postgres.url('crash') }
      } else {
        const dir = scratchDir('crash-embedded')
        dirs.push(dir)
        store = { DATA_DIR: dir }
      }
      const farm = await seedFarm(store)
      const env = serviceEnv({ ...store, PACKING_INTERVAL_SECONDS: '1' })
      const agent: Agent = keepAliveAgent(WRITERS)
      let service: ServiceProcess = await startService(env)
      try {
        const headers = await farmHeaders(agent, service, farm)
        const mac = await createAnimal(agent, service, farm, headers)
        const path = `/api/v1/users/${farm.uid}/animals/${mac}/sensordata`
        const first = Date.now() - 20 * 86_400_000
        let next = 0
        const acknowledged: Batch[] = []
        let inDoubt: Batch[] = []
        let resent = 0
        const restartMs: number[] = []
        const send = async (batch: Batch) => {
          const res = await call(agent, service.port, 'POST', path, {
            headers,
            body: { readings: batch.times.map((t) => ({ t, c: 38.5, x: 0, y: 0, z: 1 })) },
          })
          assert.equal(res.status, 200, JSON.stringify(res.body))
          assert.equal(res.body.data.stored + res.body.data.duplicates, batch.times.length)
          acknowledged.push(batch)
        }

        for (let cycle = 0; cycle < CYCLES; cycle++) {
          // A client with no answer re-sends; the store skips what it already has.
          for (const batch of inDoubt) await send(batch)
          resent += inDoubt.length
          inDoubt = []
          let killed = false
          const writer = async () => {
            while (!killed) {
              const batch = { times: Array.from({ length: BATCH }, () => first + next++ * 1000) }
              try {
                await send(batch)
              } catch (err) {
                if (!killed) throw err
                inDoubt.push(batch) // no answer: the process died under it
              }
            }
          }
          const writers = Array.from({ length: WRITERS }, writer)
          await new Promise((resolve) => setTimeout(resolve, LOAD_MS))
          killed = true
          await killHard(service)
          await Promise.all(writers)
          const restarting = performance.now()
          service = await startService(env)
          restartMs.push(performance.now() - restarting)
        }
        for (const batch of inDoubt) await send(batch)
        resent += inDoubt.length

        // The packer runs every second; give it its turns before the service stops (a quiet machine can finish
        // the load before its first one).
        await new Promise((resolve) => setTimeout(resolve, 3000))
        if (kind === 'PostgreSQL')
          await eventually(
            () => packedReadings(store, farm, mac),
            (n) => n > 0,
            'the service to pack closed hours',
            { timeoutMs: 30_000, intervalMs: 200 },
          )
        service.child.kill('SIGTERM')
        assert.equal(await service.exited, 0)
        const stored = await storedReadingTimes(store, farm, mac)
        const packed = await packedReadings(store, farm, mac)
        const acknowledgedTimes = new Set(acknowledged.flatMap((b) => b.times))
        const storedTimes = new Set(stored)
        const lost = [...acknowledgedTimes].filter((t) => !storedTimes.has(t))
        const duplicates = stored.length - storedTimes.size
        console.log(
          `  ${kind}: ${CYCLES} kill -9 cycles under ${WRITERS} writers; ${acknowledgedTimes.size} readings acknowledged ` +
            `(${resent} batches re-sent after a kill), ${stored.length} stored (${packed} packed), ${lost.length} lost, ${duplicates} duplicates; ` +
            `restarts took ${restartMs.map((ms) => Math.round(ms)).join(', ')} ms`,
        )
        assert.equal(lost.length, 0, 'no acknowledged reading is lost')
        assert.equal(duplicates, 0)
        assert.equal(stored.length, acknowledgedTimes.size, 'nothing is stored that was not sent, nothing twice')
        assert.ok(resent > 0, 'requests were in flight at each kill')
        assert.ok(packed > 0, 'the service packed readings under the load')
      } finally {
        await killHard(service)
        agent.destroy()
      }
    })
  }
})
