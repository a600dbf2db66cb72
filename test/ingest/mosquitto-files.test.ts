// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The broker's password file and ACL as `livestock-api broker` writes them: Mosquitto's own password format
// (checked against the real mosquitto_passwd), and an ACL that keeps each gateway in its own farm.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import {
  formatAcl,
  gatewayUsername,
  hashBrokerPassword,
  parsePasswordFile,
  verifyBrokerPassword,
} from '../../src/ingest/mosquitto-files.ts'
import { perKeyInOrder } from '../../src/ingest/mqtt.ts'
import { loadConfig } from '../../src/config.ts'
import { cliInProcess } from '../support/cli.ts'

describe('the broker password file', () => {
  it('hashes as mosquitto_passwd does ($7$, PBKDF2-SHA512), and reads what mosquitto_passwd writes', (t) => {
    const hash = hashBrokerPassword('secret-1')
    assert.match(hash, /^\$7\$101\$[A-Za-z0-9+/]{16}\$[A-Za-z0-9+/]{86}==$/)
    assert.equal(verifyBrokerPassword('secret-1', hash), true)
    assert.equal(verifyBrokerPassword('secret-2', hash), false)
    if (spawnSync('mosquitto_passwd', ['-h']).error) return t.skip('mosquitto_passwd is not installed')
    const dir = mkdtempSync(join(tmpdir(), 'lsapi-passwd-'))
    try {
      const file = join(dir, 'passwords')
      spawnSync('mosquitto_passwd', ['-c', '-b', file, 'farm-1/barn', 'pw-from-mosquitto'])
      const [account] = parsePasswordFile(readFileSync(file, 'utf8'))
      assert.equal(account?.username, 'farm-1/barn')
      assert.equal(verifyBrokerPassword('pw-from-mosquitto', account.hash), true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('names a gateway <user_id>/<gateway>, and refuses what Mosquitto cannot hold', () => {
    assert.equal(gatewayUsername('farm-1', 'barn_2'), 'farm-1/barn_2')
    assert.throws(() => gatewayUsername('farm:1', 'barn'), /no ':'/)
    assert.throws(() => gatewayUsername('farm-1', 'barn/2'), /gateway name/)
    assert.throws(() => gatewayUsername('farm-1', ''), /gateway name/)
  })

  it("lets a gateway write its own farm's readings only, and the service alone read them", () => {
    const acl = formatAcl([
      { username: 'livestock-api', hash: 'x' },
      { username: 'farm-1/barn', hash: 'y' },
    ])
    assert.match(acl, /user livestock-api\ntopic read livestock\/v1\/\+\/animals\/\+\/sensordata\n/)
    assert.match(acl, /topic read \$SYS\/broker\/publish\/messages\/dropped\n/)
    assert.match(acl, /user farm-1\/barn\ntopic write livestock\/v1\/farm-1\/animals\/\+\/sensordata\n/)
    assert.doesNotMatch(acl, /user farm-1\/barn\n(topic [^\n]*\n)*topic (read|readwrite)/)
  })
})

describe('livestock-api broker', () => {
  it('keeps the owner and mode of the files it replaces, so that the broker can read them at its next reload', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('gives the files to another user: runs as root')
    const dir = mkdtempSync(join(tmpdir(), 'lsapi-broker-'))
    const config = loadConfig({ DATA_DIR: ':memory:', LOG_LEVEL: 'silent' })
    try {
      assert.equal((await cliInProcess({ config }, ['broker', 'service', '--dir', dir])).code, 0)
      // the broker's user (here daemon, uid 1) owns them, as after `chown mosquitto: passwords acl`
      for (const name of ['passwords', 'acl']) chownSync(join(dir, name), 1, 1)
      chmodSync(join(dir, 'acl'), 0o640)
      const add = await cliInProcess({ config }, [
        'broker',
        'add',
        '--user',
        'farm-1',
        '--gateway',
        'barn',
        '--dir',
        dir,
      ])
      assert.equal(add.code, 0, add.stderr)
      const passwords = statSync(join(dir, 'passwords'))
      const acl = statSync(join(dir, 'acl'))
      assert.deepEqual([passwords.uid, passwords.gid, passwords.mode & 0o777], [1, 1, 0o600])
      assert.deepEqual([acl.uid, acl.gid, acl.mode & 0o777], [1, 1, 0o640])
      assert.match(readFileSync(join(dir, 'acl'), 'utf8'), /user farm-1\/barn/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('per-topic order', () => {
  it("runs one key's work in order and different keys' side by side", async () => {
    const { run, idle } = perKeyInOrder()
    const log: string[] = []
    const step = (key: string, n: number, ms: number) =>
      run(key, async () => {
        log.push(`${key}${n} start`)
        await new Promise((resolve) => setTimeout(resolve, ms))
        log.push(`${key}${n} end`)
      })
    step('a', 1, 30)
    step('a', 2, 1)
    step('b', 1, 1)
    await idle()
    assert.deepEqual(log, ['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end'])
  })
})
