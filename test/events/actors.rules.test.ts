import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { OTHER_INTEGRATOR, actorSeenBy, eventActorsSeenBy } from '../../src/modules/events/actors.rules.ts'

describe('actors as a caller sees them', () => {
  const reader = { kind: 'integrator', uid: 'int_reader' } as const
  it('shows an integrator itself, the owner and the service, and no other integrator', () => {
    assert.equal(actorSeenBy('int_reader', 'farm-1', reader), 'int_reader')
    assert.equal(actorSeenBy('farm-1', 'farm-1', reader), 'farm-1')
    assert.equal(actorSeenBy('service', 'farm-1', reader), 'service')
    assert.equal(actorSeenBy(null, 'farm-1', reader), null)
    assert.equal(actorSeenBy('int_other', 'farm-1', reader), OTHER_INTEGRATOR)
    assert.equal(actorSeenBy('farm-2', 'farm-1', reader), OTHER_INTEGRATOR)
  })
  it('shows the owner every actor', () => {
    assert.equal(actorSeenBy('int_other', 'farm-1', { kind: 'owner' }), 'int_other')
  })
  it('changes only the actors of an event', () => {
    assert.deepEqual(
      eventActorsSeenBy({ ID: '7', acknowledgedBy: 'int_other', resolvedBy: 'service' }, 'farm-1', reader),
      { ID: '7', acknowledgedBy: OTHER_INTEGRATOR, resolvedBy: 'service' },
    )
  })
})
