// `livestock-api simulate`: fills a user's account with a simulated herd and its readings, and two
// litter-monitoring devices with theirs, stored through the same ingestion code as the HTTP and MQTT
// paths, then computes the reference temperatures and derives the herd's events.
import { choiceOption, intOption, requireString, type Command } from './command.ts'
import { refreshReferenceTemperatures } from '../jobs/reference-temperature.ts'
import { deriveScheduledEvents } from '../jobs/events.ts'
import { deriveFromReadings } from '../modules/events/reading-events.ts'
import { createIdSource } from '../db/ids.ts'
import { findAnimalByMac, insertAnimal } from '../modules/animals/animals.repository.ts'
import { recordCollections } from '../modules/records/index.ts'
import { insertRecord } from '../modules/records/records.repository.ts'
import { findLitterguard, insertLitterguard } from '../modules/litterguards/litterguards.repository.ts'
import { simulateLitterguardReadings, simulatedLitterguards } from '../simulation/litterguard-simulator.ts'
import { findUserByUid } from '../modules/users/users.repository.ts'
import { ingest } from '../modules/readings/ingest.ts'
import { planAnimal, planFarm, simulateReadings, simulatedHerd } from '../simulation/herd-simulator.ts'
import { planRecords, withCull } from '../simulation/herd-records.ts'
import { CYCLE_PROFILES } from '../simulation/herd-plan.ts'

export const simulateCommands: Command[] = [
  {
    name: 'simulate',
    summary: 'Create a simulated herd for a user, with days of realistic sensor and location readings',
    usage: 'livestock-api simulate --user U [--animals N] [--days D] [--interval S] [--profile P]',
    options: {
      user: { type: 'string', value: 'U', description: 'the account (it must exist: livestock-api user create ...)' },
      animals: {
        type: 'string',
        value: 'N',
        description: 'animals in the herd (default 20); re-running with the same user reuses them',
      },
      days: {
        type: 'string',
        value: 'D',
        description: 'days of readings up to now (default 8: the reference temperature needs 7)',
      },
      interval: {
        type: 'string',
        value: 'S',
        description: "seconds between a tag's samples (default 60); locations every 5 minutes",
      },
      profile: {
        type: 'string',
        value: 'P',
        description: `the farm (${CYCLE_PROFILES.join(', ')}; default default), as jobs evaluate-predictions --help describes each`,
      },
    },
    help: [
      'A new animal comes with the farm records of its simulated life up to now, consistent with its readings:',
      'inseminations, pregnancy checks, returns to estrus, farrowings, weanings, lameness treatments, and culls',
      '(a culled sow is inactive and her tag silent from the cull); the herd pages and the scorer read them.',
      'Two litter-monitoring devices come with the herd, with readings over the same days (pen 1 turns restless',
      "in its last 3 hours; pen 2's gateway dropped out 40 minutes ago).",
      "Readings go through the service's ingestion code (idempotent: a re-run stores only what is new), then",
      "the reference temperatures of the user's animals are computed. Prints a JSON summary. --profile gives the",
      "farm one of the evaluation's farm profiles (missed-returns: sows found open by a negative check, say).",
      'The embedded store admits one process: run it while the service is stopped, or use DATABASE_URL.',
    ].join('\n'),
    run: async (values, _positionals, ctx) => {
      const uid = requireString(values, 'user')
      const animals = intOption(values, 'animals', 20, 1, 10_000)
      const days = intOption(values, 'days', 8, 1, 366)
      const intervalSeconds = intOption(values, 'interval', 60, 1, 86_400)
      const profile = choiceOption(values, 'profile', CYCLE_PROFILES) ?? 'default'

      await ctx.withDatabase(async ({ db }) => {
        if (!(await findUserByUid(db, uid)))
          throw new Error(`User ${uid} not found; create it first with livestock-api user create`)
        const { limits } = ctx.config()
        const end = Date.now()
        const ids = createIdSource(Date.now)
        const totals = {
          sensordata: { received: 0, stored: 0, duplicates: 0 },
          locations: { received: 0, stored: 0, duplicates: 0 },
        }
        let created = 0
        const records = {
          inseminations: 0,
          'pregnancy-checks': 0,
          'return-to-estrus': 0,
          births: 0,
          weanings: 0,
          movements: 0,
          treatments: 0,
        }
        const herd = simulatedHerd(uid, animals)
        const farm = planFarm({ seed: uid, start: end - days * 86_400_000, end })
        for (const animal of herd) {
          const window = {
            uid,
            start: end - days * 86_400_000,
            end,
            intervalMs: intervalSeconds * 1000,
            batchSize: limits.ingestMaxRows,
          }
          const planWindow = { seed: uid, start: window.start, end, profile }
          const plan = withCull(planAnimal(animal, planWindow), uid, animal.index)
          if (!(await findAnimalByMac(db, uid, animal.MAC))) {
            const { index: _i, homeNode: _h, neighbourNode: _n, ...body } = animal
            const Active = plan.culled === undefined || plan.culled > end
            const { id } = await insertAnimal(db, uid, { ...body, Active, Suspicious: false }, ids)
            created++
            // The records of its simulated life so far, as the farm would have kept them (only with a new animal: a
            // re-run plans other episodes, whose records would contradict these).
            for (const record of planRecords(plan, uid, animal.index, end)) {
              const collection = recordCollections.find((c) => c.segment === record.segment)!
              await insertRecord(db, collection, uid, id, collection.resource.toColumns(record.body), ids)
              records[record.segment]++
            }
          }
          for (const batch of simulateReadings(animal, window, { animal: plan, farm })) {
            const result = await ingest(db, uid, animal.MAC, batch, Date.now())
            if (result.outcome !== 'stored')
              throw new Error(`Simulated readings were refused: ${JSON.stringify(result)}`)
            const { counts } = result
            const total = totals[batch.kind]
            total.received += counts.received
            total.stored += counts.stored
            total.duplicates += counts.duplicates
          }
          // A culled sow was last heard at her cull: `t` is the latest reading's time.
          if (plan.culled !== undefined && plan.culled <= end)
            await db
              .updateTable('animals')
              .set({ t: Math.floor(plan.culled) })
              .where('uid', '=', uid)
              .where('mac', '=', animal.MAC)
              .execute()
          ctx.progress(`simulated ${animal.index + 1}/${herd.length} animals`)
        }
        const devices = simulatedLitterguards(uid)
        const deviceReadings = { received: 0, stored: 0, duplicates: 0 }
        let devicesCreated = 0
        for (const device of devices) {
          if (!(await findLitterguard(db, uid, device.MAC, 0))) {
            await insertLitterguard(db, uid, { MAC: device.MAC, Name: device.Name }, Date.now())
            devicesCreated++
          }
          const window = {
            uid,
            start: Math.floor(end / 1000) - days * 86_400,
            end: Math.floor(end / 1000),
            intervalSeconds,
            batchSize: limits.ingestMaxRows,
          }
          for (const rows of simulateLitterguardReadings(device, window)) {
            const result = await ingest(db, uid, device.MAC, { kind: 'devicedata', rows }, Date.now())
            if (result.outcome !== 'stored')
              throw new Error(`Simulated device readings were refused: ${JSON.stringify(result)}`)
            deviceReadings.received += result.counts.received
            deviceReadings.stored += result.counts.stored
            deviceReadings.duplicates += result.counts.duplicates
          }
        }
        ctx.progress('\n')
        const reference = await refreshReferenceTemperatures(db, { now: Date.now(), uid })
        // The herd's events as the service would have derived them: each animal's band against its new
        // reference, then what time and the farm records make due (silent tags, due dates, litter activity).
        let events = 0
        for (const animal of herd)
          events += (await deriveFromReadings(db, uid, animal.MAC, 'sensordata', Date.now())).length
        events += (await deriveScheduledEvents(db, { now: Date.now(), uid, activity: true })).length
        ctx.out({
          user: uid,
          profile,
          animals: herd.length,
          created,
          macs: herd.map((a) => a.MAC),
          from: new Date(end - days * 86_400_000).toISOString(),
          to: new Date(end).toISOString(),
          ...totals,
          records,
          litterguards: {
            devices: devices.length,
            created: devicesCreated,
            macs: devices.map((d) => d.MAC),
            readings: deviceReadings,
          },
          referenceTemperature: { animals: reference.animals, withReference: reference.withReference },
          events,
        })
      })
    },
  },
]
