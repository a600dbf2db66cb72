// Pure rules about animals and their tags, shared by the API, MQTT ingestion, the simulator and the CLI.

/** Tag MAC as the API accepts it: six hex pairs separated by colons, either case. */
export const MAC_PATTERN = '^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$'
const MAC = new RegExp(MAC_PATTERN)

export function isMac(value: string): boolean {
  return MAC.test(value)
}

/** The stored form of a MAC: upper case. */
export function normalizeMac(value: string): string {
  return value.toUpperCase()
}
