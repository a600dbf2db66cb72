// Store-independent: runs in the embedded pass of npm test only (test/run.ts). The simulation jobs score herds in
// memory and read no store: fit-calibration, evaluate-predictions and evaluate-farm-calibration through the CLI.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cliInProcess } from '../support/cli.ts'
import { loadConfig } from '../../src/config.ts'
import { testEnv } from '../support/app.ts'

const cli = (args: string[]) => cliInProcess({ config: loadConfig(testEnv()) }, args)

describe('livestock-api jobs fit-calibration', () => {
  it("fits each class's calibration on the tuning family and prints knots rising in both coordinates", async () => {
    const res = await cli(['jobs', 'fit-calibration', '--animals', '20', '--days', '7'])
    assert.equal(res.code, 0, res.stderr)
    const { job, fittedOn, calibration } = res.json()
    assert.equal(job, 'fit-calibration')
    assert.deepEqual([fittedOn.family, fittedOn.animals, fittedOn.days], ['cycle', 20, 7])
    for (const type of ['birth', 'heat', 'lameness']) {
      const knots: [number, number][] = calibration[type]
      assert.ok(knots.length >= 1, type)
      for (let k = 1; k < knots.length; k++)
        assert.ok(knots[k]![0] > knots[k - 1]![0] && knots[k]![1] > knots[k - 1]![1], `${type} rises`)
    }
  })
})

describe('livestock-api jobs evaluate-predictions', () => {
  it('scores simulated herds in memory and reports every class of every family side by side, with intervals', async () => {
    const res = await cli(['jobs', 'evaluate-predictions', '--seed', 'tuning-1', '--animals', '20', '--days', '7'])
    assert.equal(res.code, 0, res.stderr)
    const { job, tunedOn, heldOut } = res.json()
    assert.equal(job, 'evaluate-predictions')
    assert.deepEqual(
      [tunedOn, ...heldOut].map((r) => [r.family, r.tunedOn]),
      [
        ['cycle', true],
        ['ethogram', false],
        ['barn', false],
      ],
    )
    for (const report of [tunedOn, ...heldOut]) {
      assert.equal(report.seed, 'tuning-1')
      assert.equal(report.animals, 20)
      for (const variant of ['scorer', 'scorerWithoutRecords', 'plainThreshold']) {
        for (const type of ['birth', 'heat', 'lameness']) {
          const r = report[variant][type]
          assert.ok(
            r.episodes >= 0 && r.detected <= r.episodes && r.falseAlarmsPerAnimalMonth >= 0,
            `${variant} ${type}`,
          )
          assert.ok(
            r.falseAlarmsCI[0] <= r.falseAlarmsPerAnimalMonth && r.falseAlarmsPerAnimalMonth <= r.falseAlarmsCI[1],
          )
        }
      }
    }
  })
})

describe('livestock-api jobs evaluate-predictions --history', () => {
  it('measures a farm whose tags went on as the evaluation starts: no day of history before the window', async () => {
    const args = ['jobs', 'evaluate-predictions', '--family', 'cycle', '--seed', 'tuning-1', '--animals', '20']
    const res = await cli([...args, '--days', '7', '--history', '0'])
    assert.equal(res.code, 0, res.stderr)
    const { tunedOn } = res.json()
    assert.equal(tunedOn.historyDays, 0)
    assert.equal(tunedOn.days, 7)
    assert.equal(Date.parse(tunedOn.window.to) - Date.parse(tunedOn.window.from), 7 * 24 * 3600_000)
    assert.equal(tunedOn.window.from, '2026-01-05T00:00:00.000Z')
    // A new farm that did not enter its past: only what the scorer is given with records changes.
    const noPast = await cli([...args, '--days', '7', '--history', '0', '--no-past-records'])
    assert.equal(noPast.code, 0, noPast.stderr)
    const { tunedOn: withoutPast } = noPast.json()
    assert.deepEqual(withoutPast.scorerWithoutRecords, tunedOn.scorerWithoutRecords)
    assert.deepEqual(withoutPast.plainThreshold, tunedOn.plainThreshold)
  })
})

describe('livestock-api jobs evaluate-farm-calibration', () => {
  it("fits each farm's map on its first 30 days and measures the next 30, alarms where they were", async () => {
    const res = await cli(['jobs', 'evaluate-farm-calibration', '--seed', 'tuning-1', '--animals', '20'])
    assert.equal(res.code, 0, res.stderr)
    const { job, tunedOn, heldOut } = res.json()
    assert.equal(job, 'evaluate-farm-calibration')
    assert.deepEqual(
      [tunedOn.family, ...heldOut.map((r: { family: string }) => r.family), tunedOn.fitDays, tunedOn.measuredDays],
      ['cycle', 'ethogram', 'barn', 30, 30],
    )
    for (const report of [tunedOn, ...heldOut]) {
      for (const type of ['birth', 'heat', 'lameness']) {
        const [global, farm] = [report.global[type], report.farm[type]]
        assert.deepEqual(
          [farm.detected, farm.falseAlarms, farm.confounders.falseAlarms],
          [global.detected, global.falseAlarms, global.confounders.falseAlarms],
          `${report.family} ${type}: the map moves no alarm`,
        )
        assert.ok(report.fits[type].map.slope >= 0.5 && report.fits[type].map.slope <= 2)
      }
    }
  })
})
