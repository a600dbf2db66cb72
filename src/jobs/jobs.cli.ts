// Operator commands that run the service's scheduled jobs on demand.
import { UsageError, type Command } from '../cli.ts'
import { pruneExpiredTokens } from '../modules/tokens/token-store.ts'

export const jobCommands: Command[] = [{
  name: 'jobs',
  summary: 'Run a scheduled job now (prune-tokens)',
  usage: 'livestock-api jobs <prune-tokens>',
  options: {},
  help: 'prune-tokens   delete revocations and refresh tokens past their expiry (the service also does this hourly)',
  run: async (_values, positionals, ctx) => {
    const [job] = positionals
    if (job === 'prune-tokens') {
      await ctx.withDatabase(async ({ db }) => ctx.out({ job, deleted: await pruneExpiredTokens(db, Date.now()) }))
      return
    }
    throw new UsageError(`Unknown job "${job ?? ''}"`)
  },
}]
