import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import {
  PASSWORD,
  bearer,
  createIntegrator,
  createUser,
  integratorToken,
  uniqueId,
  userToken,
} from '../support/fixtures.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { startMailServer, type TestMailServer } from '../support/smtp.ts'

const PENDING = 'Confirm the new e-mail address: a confirmation code was sent to it'
const INVALID_CODE = 'Invalid confirmation code'
const NO_CHANGE = 'E-mail change not found'

let ctx: TestContext
let mail: TestMailServer

before(async () => {
  mail = await startMailServer()
  ctx = await createTestApp({ env: { SMTP_URL: mail.url, MAIL_FROM: 'Barn <barn@livestock.example>' } })
})
after(async () => {
  await ctx.close()
  await mail.close()
})

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH'
function call(context: TestContext, method: Method, url: string, token: string, payload?: unknown) {
  return context.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: bearer(token),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  })
}

async function owner(context = ctx) {
  const user = await createUser(context)
  return { ...user, token: (await userToken(context, user.email)).accessToken }
}

/** The messages the mail server received for `address`. */
const mailsTo = (address: string) =>
  mail.received.filter((m) => m.to.some((to) => to.toLowerCase() === address.toLowerCase()))

/** The confirmation code in the last message to `address`. */
function codeMailedTo(address: string): string {
  const code = /^ {4}([A-Za-z0-9_-]{22})\s*$/m.exec(mailsTo(address).at(-1)?.text ?? '')?.[1]
  assert.ok(code, `no code mailed to ${address}`)
  return code
}

const canLogIn = async (email: string) =>
  (await ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/login', payload: { email, password: PASSWORD } }))
    .statusCode === 200

describe("an owner's e-mail change, confirmed from the new address", () => {
  it('holds the new address until the code mailed to it is sent back, then the login moves', async () => {
    const user = await owner()
    const newEmail = `${uniqueId('moved')}@farm.example`
    const res = await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: newEmail, Name: 'Hillside' })
    assert.equal(res.statusCode, 202, res.body)
    assert.equal(res.json().message, PENDING)
    assert.equal(res.json().data.Email, user.email)
    assert.equal(res.json().data.Name, 'Hillside')
    assert.ok(await canLogIn(user.email))
    assert.ok(!(await canLogIn(newEmail)))

    const [message] = mailsTo(newEmail)
    assert.match(message!.raw, /^From: Barn <barn@livestock\.example>/m)
    assert.match(message!.raw, /Subject: Confirm your new Livestock API e-mail address/)
    const code = codeMailedTo(newEmail)

    assertError(
      await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, user.token, { code: 'x'.repeat(22) }),
      400,
      INVALID_CODE,
    )
    const confirmed = await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, user.token, { code })
    assert.equal(confirmed.statusCode, 200, confirmed.body)
    assert.equal(confirmed.json().message, 'E-mail address changed')
    assert.equal(confirmed.json().data.Email, newEmail)
    assert.ok(await canLogIn(newEmail))
    assert.ok(!(await canLogIn(user.email)))
    // A code works once.
    assertError(await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, user.token, { code }), 404, NO_CHANGE)
  })

  it('answers a taken address exactly as a free one, and mails its holder a notice without a code', async () => {
    const asker = await owner()
    const other = await owner()
    const taken = await call(ctx, 'PATCH', `/users/${asker.uid}`, asker.token, { Email: other.email.toUpperCase() })
    const free = await call(ctx, 'PATCH', `/users/${other.uid}`, other.token, {
      Email: `${uniqueId('free')}@farm.example`,
    })
    assert.equal(taken.statusCode, free.statusCode)
    assert.deepEqual(Object.keys(taken.json()), Object.keys(free.json()))
    assert.equal(taken.json().message, free.json().message)
    assert.equal(taken.json().data.Email, asker.email)

    const [notice] = mailsTo(other.email.toUpperCase())
    assert.match(notice!.text, /already has an account of its own, so nothing was changed/)
    assert.doesNotMatch(notice!.text, /^ {4}[A-Za-z0-9_-]{22}\s*$/m)
    assert.ok(await canLogIn(asker.email))
  })

  it('changes the other fields of a PUT at once and holds only the Email', async () => {
    const user = await owner()
    const newEmail = `${uniqueId('put')}@farm.example`
    const res = await call(ctx, 'PUT', `/users/${user.uid}`, user.token, {
      Email: newEmail,
      Name: 'Put farm',
      Language: 'da',
    })
    assert.equal(res.statusCode, 202, res.body)
    assert.equal(res.json().data.Email, user.email)
    assert.equal(res.json().data.Name, 'Put farm')
    assert.equal(res.json().data.Language, 'da')
    assert.equal(mailsTo(newEmail).length, 1)
  })

  it('applies a change of case alone at once (the same address)', async () => {
    const user = await owner()
    const res = await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: user.email.toUpperCase() })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.Email, user.email.toUpperCase())
  })

  it('keeps only the latest request: an earlier code no longer confirms', async () => {
    const user = await owner()
    const first = `${uniqueId('first')}@farm.example`
    const second = `${uniqueId('second')}@farm.example`
    await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: first })
    const firstCode = codeMailedTo(first)
    await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: second })
    assertError(
      await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, user.token, { code: firstCode }),
      400,
      INVALID_CODE,
    )
    const res = await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, user.token, {
      code: codeMailedTo(second),
    })
    assert.equal(res.json().data.Email, second)
  })

  it('forgets an expired change (404), and answers 409 when the address got an account meanwhile', async () => {
    const user = await owner()
    const expiring = `${uniqueId('late')}@farm.example`
    await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: expiring })
    const code = codeMailedTo(expiring)
    await ctx.database.db
      .updateTable('email_changes')
      .set({ expires_at: Date.now() - 1 })
      .where('uid', '=', user.uid)
      .execute()
    assertError(await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, user.token, { code }), 404, NO_CHANGE)

    const contested = `${uniqueId('contested')}@farm.example`
    await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: contested })
    const contestedCode = codeMailedTo(contested)
    const rival = await createUser(ctx)
    await ctx.database.db.updateTable('users').set({ email: contested }).where('uid', '=', rival.uid).execute()
    assertError(
      await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, user.token, { code: contestedCode }),
      409,
      'A user with this Email already exists',
    )
    assert.ok(await canLogIn(user.email))
  })

  it('answers 503 with Retry-After when the mail server refuses the message', async () => {
    const user = await owner()
    mail.refuse(true)
    try {
      const res = await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, {
        Email: `${uniqueId('bounce')}@farm.example`,
      })
      assertError(res, 503, 'The confirmation e-mail could not be sent; try again later')
      assert.equal(res.headers['retry-after'], '60')
    } finally {
      mail.refuse(false)
    }
  })

  it('refuses bad confirmation bodies with 400', async () => {
    const user = await owner()
    const url = `/users/${user.uid}/email-confirmation`
    assertInvalid(await call(ctx, 'POST', url, user.token, {}), ['code'])
    assertInvalid(await call(ctx, 'POST', url, user.token, { code: '' }), ['code'])
    assertInvalid(await call(ctx, 'POST', url, user.token, { code: 'x'.repeat(65) }), ['code'])
    assertInvalid(await call(ctx, 'POST', url, user.token, { code: 42 }), ['code'])
    assertInvalid(await call(ctx, 'POST', url, user.token, { code: 'abc', Email: 'x@farm.example' }), ['Email'])
    assertError(await call(ctx, 'POST', url, user.token, { code: 'abc' }), 404, NO_CHANGE)
    await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: `${uniqueId('body')}@farm.example` })
    assertError(await call(ctx, 'POST', url, user.token, { code: 'abc' }), 400, INVALID_CODE)
  })

  it('is the owner’s alone: a linked integrator and another user are refused', async () => {
    const user = await owner()
    const stranger = await owner()
    const writer = await createIntegrator(ctx, { canWrite: true, linkTo: [user.uid] })
    const writerToken = (await integratorToken(ctx, writer.uid)).accessToken
    const newEmail = `${uniqueId('vendor')}@farm.example`
    assertError(
      await call(ctx, 'PATCH', `/users/${user.uid}`, writerToken, { Email: newEmail }),
      403,
      'Only the account owner can change the e-mail address',
    )
    assert.equal(mailsTo(newEmail).length, 0)
    await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Email: newEmail })
    const code = codeMailedTo(newEmail)
    for (const token of [writerToken, stranger.token]) {
      const res = await call(ctx, 'POST', `/users/${user.uid}/email-confirmation`, token, { code })
      assert.equal(res.statusCode, 403, res.body)
    }
    assert.ok(await canLogIn(user.email))
  })
})

// These apps differ from the file's in configuration only, so they run on its store (their owners are new ones).
describe('without a mail server, and with EMAIL_CHANGE=immediate', () => {
  it('refuses an owner’s change alike for a free and a taken address when no mail server is set up', async () => {
    const bare = await createTestApp({ store: ctx })
    try {
      const user = await owner(bare)
      const other = await owner(bare)
      for (const Email of [other.email, `${uniqueId('free')}@farm.example`]) {
        assertError(
          await call(bare, 'PATCH', `/users/${user.uid}`, user.token, { Email }),
          403,
          'E-mail changes are confirmed from the new address, and this service has no mail server set up: ask the operator',
        )
      }
    } finally {
      await bare.close()
    }
  })

  it("keeps the spec's bare flow as the operator's opt-in: changed at once, 409 when in use", async () => {
    const immediate = await createTestApp({ env: { EMAIL_CHANGE: 'immediate' }, store: ctx })
    try {
      const user = await owner(immediate)
      const other = await owner(immediate)
      assertError(
        await call(immediate, 'PATCH', `/users/${user.uid}`, user.token, { Email: other.email.toUpperCase() }),
        409,
        'A user with this Email already exists',
      )
      const newEmail = `${uniqueId('now')}@farm.example`
      const res = await call(immediate, 'PATCH', `/users/${user.uid}`, user.token, { Email: newEmail })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal((await userToken(immediate, newEmail)).uid, user.uid)
    } finally {
      await immediate.close()
    }
  })

  it("mails no text of the account's own, and takes at most 10 change requests a day from one account", async () => {
    // Each request mails an address the caller names: the Name in it, and 1,000 requests a day per method (the
    // user quota), made the service a relay of the caller's text to any address.
    const user = await owner()
    const lure = 'Your account is locked: sign in at https://phish.example/ to keep it'
    const named = await call(ctx, 'PATCH', `/users/${user.uid}`, user.token, { Name: lure })
    assert.equal(named.statusCode, 200, named.body)
    const addresses = Array.from({ length: 11 }, () => `${uniqueId('relay')}@farm.example`)
    const answers = []
    for (const [i, Email] of addresses.entries())
      answers.push(await call(ctx, i % 2 ? 'PUT' : 'PATCH', `/users/${user.uid}`, user.token, { Email, Name: `N${i}` }))
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      [...Array<number>(10).fill(202), 429],
    )
    assertError(answers[10]!, 429, 'Too many e-mail change requests for this account: 10 per 24 hours')
    assert.ok(Number(answers[10]!.headers['retry-after']) > 0)
    const mailed = addresses.flatMap(mailsTo)
    assert.equal(mailed.length, 10)
    for (const message of mailed) assert.doesNotMatch(message.text, /phish/)
    // The refused request changed nothing.
    const now = await call(ctx, 'GET', `/users/${user.uid}`, user.token)
    assert.equal(now.json().data.Name, 'N9')
  })
})
