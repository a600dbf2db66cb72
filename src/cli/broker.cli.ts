// Operator commands for the broker setup in deploy/mosquitto (docs/mqtt.md): the service's account and one per
// gateway, in Mosquitto's own password file, with the ACL rewritten from it on every change.
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { optionalString, requireString, UsageError, type Command } from './command.ts'
import {
  checkServiceUsername,
  formatAcl,
  formatPasswordFile,
  gatewayUid,
  gatewayUsername,
  generateBrokerPassword,
  hashBrokerPassword,
  parsePasswordFile,
  type BrokerAccount,
} from '../ingest/mosquitto-files.ts'
import { readingTopics } from '../ingest/topics.ts'

const DEFAULT_DIR = 'deploy/mosquitto'

function readAccounts(dir: string): BrokerAccount[] {
  const file = join(dir, 'passwords')
  return existsSync(file) ? parsePasswordFile(readFileSync(file, 'utf8')) : []
}

/**
 * Both files, each written whole and renamed into place, so the broker never reads half of one. A file replaced
 * keeps its owner and mode: Mosquitto reads them as its own user again at every reload, and a file now owned by
 * whoever ran the command (root, through sudo) would lock every client out.
 */
function writeAccounts(dir: string, accounts: BrokerAccount[]): void {
  const write = (name: string, text: string) => {
    const file = join(dir, name)
    const current = existsSync(file) ? statSync(file) : undefined
    const asRoot = process.getuid?.() === 0
    if (current && !asRoot && current.uid !== process.getuid?.())
      throw new Error(
        `${file} belongs to another user (uid ${current.uid}), which the broker may read it as: run this command as that user or as root`,
      )
    writeFileSync(`${file}.tmp`, text, { mode: 0o600 })
    if (current) {
      chmodSync(`${file}.tmp`, current.mode & 0o777)
      if (asRoot) chownSync(`${file}.tmp`, current.uid, current.gid)
    }
    renameSync(`${file}.tmp`, file)
  }
  write('passwords', formatPasswordFile(accounts))
  write('acl', formatAcl(accounts))
}

/** Sets a new password for `username` (creating the account), and returns it. */
function setPassword(dir: string, username: string): string {
  const password = generateBrokerPassword()
  const others = readAccounts(dir).filter((a) => a.username !== username)
  writeAccounts(dir, [...others, { username, hash: hashBrokerPassword(password) }])
  return password
}

function gatewayOf(values: Record<string, string | boolean | undefined>): string {
  try {
    return gatewayUsername(requireString(values, 'user'), requireString(values, 'gateway'))
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

const APPLY = 'the broker reads the files again on SIGHUP (systemctl reload mosquitto)'

export const brokerCommands: Command[] = [
  {
    name: 'broker',
    summary:
      "Manage the MQTT broker's accounts: the service's and one per gateway (service | add | rotate | remove | list)",
    usage: 'livestock-api broker <service|add|rotate|remove|list> [options]',
    options: {
      dir: { type: 'string', value: 'D', description: `folder of the password file and ACL (default ${DEFAULT_DIR})` },
      user: { type: 'string', value: 'U', description: "the farm's user id a gateway publishes for" },
      gateway: { type: 'string', value: 'G', description: 'the gateway name, 1-32 letters, digits, _ or -' },
      username: { type: 'string', value: 'N', description: "the service's account (default livestock-api)" },
    },
    help: [
      "service  Create the service's account, or give it a new password: set MQTT_USERNAME, MQTT_PASSWORD and (when",
      '         created) MQTT_SHARE_GROUP, a secret group name, to what it prints; it alone may read the readings',
      "add      Create the account <user>/<gateway> (--user, --gateway): it may publish that user's readings only;",
      '         prints its password once',
      "rotate   A new password for a gateway (--user, --gateway); the old one stops working at the broker's reload",
      "remove   Remove a gateway's account (--user, --gateway)",
      'list     The accounts and what each may do',
      `Writes <dir>/passwords (Mosquitto's format, as mosquitto_passwd) and <dir>/acl; ${APPLY}.`,
    ].join('\n'),
    run: async (values, positionals, ctx) => {
      const dir = optionalString(values, 'dir') ?? DEFAULT_DIR
      if (!existsSync(dir)) throw new UsageError(`--dir ${dir} is not a folder`)
      const action = positionals[0]
      switch (action) {
        case 'service': {
          let username: string
          try {
            username = checkServiceUsername(optionalString(values, 'username') ?? 'livestock-api')
          } catch (err) {
            throw new UsageError((err as Error).message)
          }
          const created = !readAccounts(dir).some((a) => a.username === username)
          const password = setPassword(dir, username)
          // Mosquitto's ACL file cannot refuse a subscription, and any client in the service's share group takes a
          // share of the messages (which the ACL then withholds from it): so the group's name is a secret too.
          const group = created ? { MQTT_SHARE_GROUP: `livestock-api-${randomBytes(16).toString('hex')}` } : {}
          ctx.out({
            username,
            password,
            env: { MQTT_USERNAME: username, MQTT_PASSWORD: password, ...group },
            apply: APPLY,
          })
          return
        }
        case 'add':
        case 'rotate': {
          const username = gatewayOf(values)
          const exists = readAccounts(dir).some((a) => a.username === username)
          if (action === 'add' && exists) throw new Error(`${username} exists already: rotate gives it a new password`)
          if (action === 'rotate' && !exists) throw new Error(`no gateway account ${username}`)
          const password = setPassword(dir, username)
          ctx.out({ username, password, publishes: readingTopics(gatewayUid(username)), apply: APPLY })
          return
        }
        case 'remove': {
          const username = gatewayOf(values)
          const accounts = readAccounts(dir)
          if (!accounts.some((a) => a.username === username)) throw new Error(`no gateway account ${username}`)
          writeAccounts(
            dir,
            accounts.filter((a) => a.username !== username),
          )
          ctx.out({
            removed: username,
            apply: `${APPLY}; a connected gateway keeps its connection until it reconnects`,
          })
          return
        }
        case 'list':
          ctx.out(
            readAccounts(dir).map(({ username }) => {
              const uid = gatewayUid(username)
              return uid === undefined
                ? { username, role: 'service', reads: readingTopics() }
                : { username, role: 'gateway', user: uid, publishes: readingTopics(uid) }
            }),
          )
          return
        default:
          throw new UsageError('broker takes one of service, add, rotate, remove, list')
      }
    },
  },
]
