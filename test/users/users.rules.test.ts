// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  LANGUAGE_PATTERN,
  PHONE_PATTERN,
  containsPattern,
  flagCountAfter,
  integrationFlagsOf,
  splitFlagChanges,
} from '../../src/modules/users/users.rules.ts'

describe('user rules', () => {
  it('picks the <Vendor>Integration fields of a body, and only those', () => {
    assert.deepEqual(
      integrationFlagsOf({
        Name: 'x',
        AcmeIntegration: true,
        B2Integration: null,
        acmeIntegration: true,
        Integration: true,
        BDUser: true,
      }),
      { AcmeIntegration: true, B2Integration: null },
    )
  })

  it('splits flag changes into flags to set and flags to remove', () => {
    assert.deepEqual(splitFlagChanges({ AIntegration: true, BIntegration: null, CIntegration: false }), {
      set: { AIntegration: true, CIntegration: false },
      remove: ['BIntegration'],
    })
  })

  it('counts the flags an account holds after a change', () => {
    assert.equal(
      flagCountAfter(
        { AIntegration: true, BIntegration: false },
        { BIntegration: null, CIntegration: true, DIntegration: false },
      ),
      3,
    )
    assert.equal(flagCountAfter({ AIntegration: true }, { AIntegration: false, ZIntegration: null }), 1)
  })

  it('builds a LIKE pattern that takes % _ and \\ literally', () => {
    assert.equal(containsPattern('100%'), '%100\\%%')
    assert.equal(containsPattern('a_b'), '%a\\_b%')
    assert.equal(containsPattern('c:\\x'), '%c:\\\\x%')
    assert.equal(containsPattern('plain'), '%plain%')
  })

  it('accepts E.164 phone numbers only', () => {
    const phone = new RegExp(PHONE_PATTERN)
    for (const ok of ['+4915112345678', '+12025550123', '+3312345']) assert.ok(phone.test(ok), ok)
    for (const bad of ['015112345678', '+0151123456', '+49 151 1234567', '+49-151', '+1234567890123456', ''])
      assert.ok(!phone.test(bad), bad)
  })

  it('accepts BCP 47 shaped language tags', () => {
    const language = new RegExp(LANGUAGE_PATTERN)
    for (const ok of ['en', 'de-AT', 'zh-Hant-TW', 'gsw']) assert.ok(language.test(ok), ok)
    for (const bad of ['e', 'english', 'de_AT', 'de-', '']) assert.ok(!language.test(bad), bad)
  })
})
