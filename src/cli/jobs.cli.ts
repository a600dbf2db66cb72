// Operator commands that run the service's scheduled jobs on demand.
import {
  UsageError,
  choiceOption,
  intOption,
  optionalString,
  type CliContext,
  type CliValues,
  type Command,
} from './command.ts'
import type { Database } from '../db/database.ts'
import { pruneExpiredTokens } from '../auth/token-store.ts'
import { refreshNow } from '../jobs/reference-temperature.ts'
import { findUserByUid } from '../modules/users/users.repository.ts'
import { EVALUATION_SEED, evaluatePredictions } from '../simulation/evaluation.ts'
import { HERD_FAMILIES, TUNING_FAMILY, type HerdFamily } from '../simulation/herd-hours.ts'
import { CALIBRATION_FIT, fitCalibration } from '../simulation/calibration-fit.ts'
import { evaluateFarmCalibration } from '../simulation/farm-calibration-evaluation.ts'
import { CYCLE_PROFILES, type CycleProfile } from '../simulation/herd-plan.ts'
import { ETHOGRAM_PROFILES, type EthogramProfile } from '../simulation/ethogram-herd.ts'
import { PREDICTIONS_LOCK, scorePredictions } from '../jobs/predictions.ts'
import { withSingleRunner } from '../jobs/single-runner.ts'
import { EVENTS_LOCK, deriveScheduledEvents } from '../jobs/events.ts'
import { createEventHub } from '../modules/events/event-hub.ts'
import { PACKING_LOCK, packReadings } from '../jobs/packing.ts'
import { MAINTENANCE_LOCK, runMaintenance } from '../jobs/maintenance.ts'

export const jobCommands: Command[] = [
  {
    name: 'jobs',
    summary:
      'Run a scheduled job now (prune-tokens, maintenance, reference-temperature, predictions, events, pack), or evaluate the scorer',
    usage:
      'livestock-api jobs <prune-tokens | maintenance | reference-temperature [--user U] | predictions [--user U] | events [--user U] | pack [--user U] | evaluate-predictions [--family F] [--profile P] [--seed S] [--animals N] [--days D] [--history H] [--no-past-records] | evaluate-farm-calibration [--family F] [--profile P] [--seed S] [--animals N] | fit-calibration [--animals N] [--days D]>',
    options: {
      user: {
        type: 'string',
        value: 'U',
        description: 'only the animals of this user (reference-temperature, predictions, events, pack)',
      },
      seed: {
        type: 'string',
        value: 'S',
        description: `the simulated herd's seed (evaluate-predictions, evaluate-farm-calibration; default ${EVALUATION_SEED})`,
      },
      animals: {
        type: 'string',
        value: 'N',
        description: `animals in the simulated herd (evaluate-predictions; default 200; evaluate-farm-calibration: 100; fit-calibration: ${CALIBRATION_FIT.animals})`,
      },
      days: {
        type: 'string',
        value: 'D',
        description: 'days evaluated (evaluate-predictions, fit-calibration; default 60)',
      },
      history: {
        type: 'string',
        value: 'H',
        description:
          'days of readings before the evaluated ones (evaluate-predictions; default 28; 0: a farm whose tags went on as the evaluation starts)',
      },
      'no-past-records': {
        type: 'boolean',
        description:
          "give the scorer only the records dated from the evaluated days' start (evaluate-predictions: a new farm that did not enter its sows' past)",
      },
      family: {
        type: 'string',
        value: 'F',
        description: `one family of simulated herds (${HERD_FAMILIES.join(', ')}; evaluate-predictions, evaluate-farm-calibration; default all)`,
      },
      profile: {
        type: 'string',
        value: 'P',
        description: `the cycle family's farm profile (${CYCLE_PROFILES.join(', ')}; evaluate-predictions, evaluate-farm-calibration; default default)`,
      },
    },
    help: [
      'prune-tokens            delete revocations and refresh tokens past their expiry (the service also does this hourly)',
      'maintenance             the hourly maintenance now: expired tokens and idempotency keys, and the access log, the',
      '                        delivery log, raw readings, settled events and predictions past their retention',
      '                        (ACCESS_LOG_RETENTION_DAYS, DELIVERY_LOG_RETENTION_DAYS, READINGS_RETENTION_DAYS,',
      '                        EVENTS_RETENTION_DAYS, PREDICTIONS_RETENTION_DAYS), in batches of RETENTION_BATCH_ROWS;',
      '                        prints the rows deleted per table. Skipped when another process is running it',
      "reference-temperature   recompute every animal's ReferenceTemperature now, or only the animals of --user U",
      '                        (the service also does this daily at 00:00 UTC)',
      'predictions             score every active animal (or those of --user U) for the hours completed since the last',
      '                        run (at most 24) and store the predictions (the service also does this hourly); skipped',
      '                        when another process is scoring',
      'events                  derive the events that come from time passing (silent tags, offline litter devices, low',
      '                        batteries, due dates, unusual litter activity) for every account or --user U (the service',
      '                        also does this every minute)',
      'evaluate-predictions    score simulated herds (default 200 animals) over 60 days in memory and print, per class,',
      '                        sensitivity, lead, false alarms per animal-month, AUC and calibration with 95 % intervals,',
      `                        for the family the rules were tuned on (${TUNING_FAMILY}) and each one they were not, side`,
      `                        by side (default --seed ${EVALUATION_SEED}). Needs no database; takes a few minutes. --profile`,
      '                        late-crates: the cycle family with late crate moves, a quieter crate, weak and short',
      '                        nest builders (for tuning the birth rules); long-gestation: the same farrowing unit on a',
      '                        farm whose sows farrow 117-121 days after the service (for measuring per-farm learning);',
      '                        rough: the default farm with lameness in one animal in seven, fevers, loose and replaced',
      '                        tags, fights after weaning, pens disturbed or cut off together (for the calibration);',
      '                        weak-nesters: the same farrowing unit where three sows in four build weak or short nests;',
      '                        gilts: the default farm with gilts and unrecorded weanings (heat without a record);',
      '                        weak-heats: the default farm with heats as the literature describes a commercial herd',
      '                        (most 1.15-1.45x, 36-72 h, built up over 8-12 h, mostly by day, 3-8 days after weaning);',
      '                        missed-returns: the default farm with one service in three failing and half the returns',
      '                        unseen until a scan finds the sow open. The ethogram family runs its farm of the same',
      '                        name where it has one (weak-nesters, missed-returns), else its default farm; the barn',
      '                        family has one farm',
      '                        --history H: days of readings before the evaluated ones (default 28, so baselines exist);',
      '                        0 measures a farm whose tags went on as the evaluation starts, its first weeks;',
      '                        --no-past-records: the scorer reads only the records dated from the evaluated days on',
      "evaluate-farm-calibration  per-farm calibration: each family's herd (default 100 animals, a sample every 2",
      "                        minutes), its first 30 evaluated days' records fit the farm's map, the next 30 measure the",
      "                        calibration error and reliability with the global calibration and with the farm's, side",
      '                        by side with 95 % intervals. Needs no database',
      "fit-calibration         fit the scorer's calibration (SCORER.calibration) on the tuning family's herds",
      `                        (${[...new Set(CALIBRATION_FIT.conditions.map((c) => c.seed))].join(', ')}; every farm profile, a sample every 2 minutes and for`,
      '                        three every minute) with their records, each profile counting alike, and print its knots',
      '                        per class; paste them into scorer-settings.rules.ts after a rule changes. Needs no',
      '                        database; about 5 minutes',
      "pack                    pack every tag's closed hours of readings now (the service also does this every 10 minutes)",
    ].join('\n'),
    run: async (values, positionals, ctx) => {
      const [job] = positionals
      if (job === 'prune-tokens') {
        await ctx.withDatabase(async ({ db }) => ctx.out({ job, deleted: await pruneExpiredTokens(db, Date.now()) }))
        return
      }
      if (job === 'maintenance') {
        await ctx.withDatabase(async (database) => {
          const outcome = await withSingleRunner(database, MAINTENANCE_LOCK, (conn) =>
            runMaintenance(conn, ctx.config(), Date.now()),
          )
          ctx.out({ job, ...(outcome ?? { skipped: 'another process is running the maintenance now' }) })
        })
        return
      }
      if (job === 'reference-temperature') {
        await runForUsers(
          ctx,
          values,
          job,
          'another process is refreshing reference temperatures now',
          (database, uid) => refreshNow(database, { now: Date.now(), uid }),
        )
        return
      }
      if (job === 'events') {
        await runForUsers(ctx, values, job, 'another process is deriving events now', async (database, uid) => {
          const created = await withSingleRunner(database, EVENTS_LOCK, (conn) =>
            deriveScheduledEvents(conn, { now: Date.now(), uid, activity: true }),
          )
          return created && { created: created.length }
        })
        return
      }
      if (job === 'predictions') {
        await runForUsers(ctx, values, job, 'another process is scoring predictions now', (database, uid) =>
          withSingleRunner(database, PREDICTIONS_LOCK, (conn) =>
            scorePredictions(conn, {
              now: Date.now(),
              uid,
              events: createEventHub({ derive: ctx.config().eventDerivation }),
            }),
          ),
        )
        return
      }
      if (job === 'pack') {
        const pack = (database: Database, uid: string | undefined) =>
          withSingleRunner(database, PACKING_LOCK, (conn) =>
            packReadings(conn, { now: Date.now(), ...(uid ? { uid } : {}) }),
          )
        await runForUsers(ctx, values, job, 'another process is packing now', pack, { checkUser: false })
        return
      }
      if (job === 'evaluate-predictions') {
        const seed = optionalString(values, 'seed') ?? EVALUATION_SEED
        const animals = intOption(values, 'animals', 200, 20, 2000)
        const days = intOption(values, 'days', 60, 7, 365)
        const historyDays = intOption(values, 'history', 28, 0, 365)
        const families = familiesOf(values)
        const cycleProfile = choiceOption(values, 'profile', CYCLE_PROFILES) ?? 'default'
        const pastRecords = values['no-past-records'] !== true
        const profile = ethogramProfileOf(cycleProfile)
        const reports = families.map((f) =>
          evaluatePredictions({ family: f, seed, animals, days, historyDays, cycleProfile, profile, pastRecords }),
        )
        ctx.out({ job, ...tunedOnAndHeldOut(reports) })
        return
      }
      if (job === 'evaluate-farm-calibration') {
        const seed = optionalString(values, 'seed') ?? EVALUATION_SEED
        const animals = intOption(values, 'animals', 100, 20, 2000)
        const families = familiesOf(values)
        const cycleProfile = choiceOption(values, 'profile', CYCLE_PROFILES) ?? 'default'
        const reports = families.map((f) =>
          evaluateFarmCalibration({
            family: f,
            cycleProfile,
            seed,
            animals,
            intervalMs: 120_000,
          }),
        )
        ctx.out({ job, ...tunedOnAndHeldOut(reports) })
        return
      }
      if (job === 'fit-calibration') {
        const animals = intOption(values, 'animals', CALIBRATION_FIT.animals, 20, 2000)
        const days = intOption(values, 'days', CALIBRATION_FIT.days, 7, 365)
        const fit = { ...CALIBRATION_FIT, animals, days }
        ctx.out({ job, fittedOn: fit, calibration: fitCalibration(fit) })
        return
      }
      throw new UsageError(`Unknown job "${job ?? ''}"`)
    },
  },
]

/** The held-out family's farm of the same name where it has one (weak-nesters, missed-returns), or its default farm. */
function ethogramProfileOf(cycleProfile: CycleProfile): EthogramProfile {
  return ETHOGRAM_PROFILES.includes(cycleProfile as EthogramProfile) ? (cycleProfile as EthogramProfile) : 'default'
}

/** The herd families an evaluation runs on: the one --family names, or all. */
function familiesOf(values: CliValues): readonly HerdFamily[] {
  const family = choiceOption(values, 'family', HERD_FAMILIES)
  return family === undefined ? HERD_FAMILIES : [family]
}

/** An evaluation's answer: its report on the family the scorer was tuned on (null: not run), and on each held-out one. */
function tunedOnAndHeldOut<Report extends { tunedOn: boolean }>(reports: Report[]) {
  return { tunedOn: reports.find((r) => r.tunedOn) ?? null, heldOut: reports.filter((r) => !r.tunedOn) }
}

/**
 * Runs a job for every account, or only for --user U (which must exist, unless `checkUser` is false), and prints
 * what it did, or `skipped: busy` when another process was running it (the job answered undefined).
 */
async function runForUsers(
  ctx: CliContext,
  values: CliValues,
  job: string,
  busy: string,
  run: (database: Database, uid: string | undefined) => Promise<object | undefined>,
  { checkUser = true } = {},
): Promise<void> {
  const uid = optionalString(values, 'user')
  await ctx.withDatabase(async (database) => {
    if (checkUser && uid !== undefined && !(await findUserByUid(database.db, uid)))
      throw new Error(`User ${uid} not found`)
    const outcome = await run(database, uid)
    ctx.out({ job, ...(uid ? { user: uid } : {}), ...(outcome ?? { skipped: busy }) })
  })
}
