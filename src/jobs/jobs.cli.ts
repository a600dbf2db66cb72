// Operator commands that run the service's scheduled jobs on demand.
import { UsageError, optionalString, type Command } from '../cli/command.ts'
import { pruneExpiredTokens } from '../modules/tokens/token-store.ts'
import { refreshReferenceTemperatures } from './reference-temperature.ts'
import { findUserByUid } from '../modules/users/users.repository.ts'

export const jobCommands: Command[] = [{
  name: 'jobs',
  summary: 'Run a scheduled job now (prune-tokens, reference-temperature)',
  usage: 'livestock-api jobs <prune-tokens | reference-temperature [--user U]>',
  options: { user: { type: 'string' } },
  help: [
    'prune-tokens            delete revocations and refresh tokens past their expiry (the service also does this hourly)',
    'reference-temperature   recompute every animal\'s ReferenceTemperature now, or only the animals of --user U',
    '                        (the service also does this daily at 00:00 UTC)',
  ].join('\n'),
  run: async (values, positionals, ctx) => {
    const [job] = positionals
    if (job === 'prune-tokens') {
      await ctx.withDatabase(async ({ db }) => ctx.out({ job, deleted: await pruneExpiredTokens(db, Date.now()) }))
      return
    }
    if (job === 'reference-temperature') {
      const uid = optionalString(values, 'user')
      await ctx.withDatabase(async ({ db }) => {
        if (uid !== undefined && !(await findUserByUid(db, uid))) throw new Error(`User ${uid} not found`)
        ctx.out({ job, ...(uid ? { user: uid } : {}), ...await refreshReferenceTemperatures(db, { now: Date.now(), uid }) })
      })
      return
    }
    throw new UsageError(`Unknown job "${job ?? ''}"`)
  },
}]
