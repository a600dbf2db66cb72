// Pure rules about animals and their tags, shared by the API, MQTT ingestion, the simulator and the CLI.
import { describedPattern } from '../../http/input-patterns.ts'

/** Tag MAC as the API accepts it: six hex pairs separated by colons, either case. */
export const MAC_PATTERN = describedPattern(
  '^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$',
  'must be a MAC address, AA:BB:CC:DD:EE:FF (either case)',
)
const MAC = new RegExp(MAC_PATTERN)

export function isMac(value: string): boolean {
  return MAC.test(value)
}

/** The stored form of a MAC: upper case. */
export function normalizeMac(value: string): string {
  return value.toUpperCase()
}
