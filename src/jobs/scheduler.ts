// The one scheduler of the service's jobs: a run at start (for what was missed), then one at each due
// time, each as the job's single runner (single-runner.ts), so a process that finds another running the
// job skips it. A failed run is logged and the schedule goes on.
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { App } from '../types.ts'
import { withSingleRunner } from './single-runner.ts'

export interface ScheduledJob<Outcome extends object> {
  name: string
  /** The job's single-runner key (a constant distinct from every other job's). */
  lockKey: number
  /** The instant the run at start is for (the latest midnight, or now). */
  firstRunAt: (now: number) => number
  /** The instant the next run is due, after `now`. */
  nextRunAt: (now: number) => number
  run: (conn: Kysely<DB>, at: number) => Promise<Outcome>
  /** Logged at info after a run; a run whose outcome `quiet` says is nothing to report is not logged. */
  done: string
  quiet?: (outcome: Outcome) => boolean
}

/** Runs the job once as its single runner; undefined when another runner has it. */
export function runJobOnce<Outcome extends object>(
  app: App,
  job: ScheduledJob<Outcome>,
  at: number,
): Promise<Outcome | undefined> {
  return withSingleRunner(app.database, job.lockKey, (conn) => job.run(conn, at))
}

/** Starts the job's schedule. Returns the stop function. */
export function startSchedule<Outcome extends object>(app: App, job: ScheduledJob<Outcome>): () => void {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const run = async (at: number) => {
    try {
      const outcome = await runJobOnce(app, job, at)
      if (!outcome) app.log.info({ job: job.name }, `another runner has the ${job.name} job; skipped`)
      else if (!job.quiet?.(outcome)) {
        const fields: Record<string, unknown> = { job: job.name, at: new Date(at).toISOString(), ...outcome }
        app.log.info(fields, job.done)
      }
    } catch (err) {
      app.log.error({ err, job: job.name }, `${job.name} job failed; the next run catches up`)
    }
  }
  const schedule = () => {
    if (stopped) return
    const at = job.nextRunAt(app.clock())
    timer = setTimeout(
      () => {
        void run(at).then(schedule)
      },
      Math.max(0, at - app.clock()),
    )
    timer.unref()
  }
  void run(job.firstRunAt(app.clock())).then(schedule)
  return () => {
    stopped = true
    if (timer) clearTimeout(timer)
  }
}
