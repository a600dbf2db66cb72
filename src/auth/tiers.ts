// Integrator API tiers. Each has two names in the spec; both are accepted, one is stored.
export type Tier = 'free' | 'starter' | 'pro' | 'enterprise'

export const TIERS: readonly Tier[] = ['free', 'starter', 'pro', 'enterprise']

const ALIASES: Record<string, Tier> = {
  free: 'free',
  sandbox: 'free',
  starter: 'starter',
  pro: 'pro',
  integrator: 'pro',
  enterprise: 'enterprise',
  partner: 'enterprise',
}

/** Canonical tier for any of its names (case-insensitive), or undefined. */
export function parseTier(name: string): Tier | undefined {
  return ALIASES[name.trim().toLowerCase()]
}

/** Raw sensor data (/sensordata*) is for integrator tokens on Pro or Enterprise only. */
export function tierIncludesSensorData(tier: Tier): boolean {
  return tier === 'pro' || tier === 'enterprise'
}

export const TIER_NAMES = 'Free (Sandbox), Starter, Pro (Integrator), Enterprise (Partner)'
