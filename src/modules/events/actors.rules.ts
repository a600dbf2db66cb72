// Who did something to an account's events or alert rules, as a caller of that account may see it.

/**
 * Who acted when the service itself resolved an event: its cause went away, a newer event superseded it, or it is an
 * all-clear (resolved at its creation).
 */
export const SERVICE_ACTOR = 'service'

/** What an integrator sees instead of another integrator's UID: never a UID (it has a space). */
export const OTHER_INTEGRATOR = 'another integrator'

/** Who is looking: the account's owner, or an integrator linked to it. */
export type Viewer = { kind: 'owner' } | { kind: 'integrator'; uid: string }

/**
 * An actor (`acknowledgedBy`, `resolvedBy`, `updatedBy`) as `viewer` sees it. Integrators never see each other: a
 * UID is the credential of a --no-secret integrator, and who else reads a farm is the farm's to tell. So an integrator
 * sees itself, the account's owner and the service named, and any other actor as OTHER_INTEGRATOR; the owner sees all.
 */
export function actorSeenBy(actor: string | null, account: string, viewer: Viewer): string | null {
  if (actor === null || viewer.kind === 'owner') return actor
  if (actor === viewer.uid || actor === account || actor === SERVICE_ACTOR) return actor
  return OTHER_INTEGRATOR
}

/** An event's actors (who acknowledged and resolved it) as `viewer` sees them; the rest of it as it is. */
export function eventActorsSeenBy<E extends { acknowledgedBy?: string | null; resolvedBy?: string | null }>(
  event: E,
  account: string,
  viewer: Viewer,
): E {
  return {
    ...event,
    acknowledgedBy: actorSeenBy(event.acknowledgedBy ?? null, account, viewer),
    resolvedBy: actorSeenBy(event.resolvedBy ?? null, account, viewer),
  }
}
