// The account endpoints under concurrency, over real sockets: dozens of
// revocations, sign-outs racing writes in flight, password changes racing
// each other. What must hold once the dust settles is asserted, never timing.
import { test, type Test } from 'tap'
import { MemorySessionStore, sessionKey } from '@fastify-gatehouse/session'
import { accountServer, call, cookieFrom, fetchSignIn, NEW_PASSWORD, whoIs, type AccountServerOptions } from './helpers/account.js'

async function started (t: Test, options: AccountServerOptions = {}): Promise<string> {
  const server = await accountServer({
    ...options,
    routes: (app) => {
      // A request that writes its session: it must never bring a revoked one back.
      app.post('/test/write', async (request) => {
        request.scope.session!.set('seen', Date.now())
        return { ok: true }
      })
    }
  })
  t.teardown(() => server.close())
  return await server.serve('127.0.0.1', 0)
}

async function signIns (base: string, count: number, identity = 'alice', password = 'alice-pass'): Promise<string[]> {
  const cookies: string[] = []
  // One after another: parallel sign-ins would meet the lockout's bound on attempts in flight.
  for (let i = 0; i < count; i++) cookies.push(await fetchSignIn(base, identity, password, `agent-${i}`))
  return cookies
}

async function handle (base: string, cookie: string): Promise<string> {
  return ((await (await call(base, 'GET', '/_server/account/me', { cookie })).json()) as { session: { handle: string } }).session.handle
}

test('40 parallel revocations of 40 sessions: each 200, each session anonymous after, the caller\'s kept', async (t) => {
  const base = await started(t)
  const [mine, ...others] = await signIns(base, 41)
  const handles = await Promise.all(others.map(async (cookie) => await handle(base, cookie)))
  const answers = await Promise.all(handles.map(async (h) => await call(base, 'DELETE', `/_server/account/sessions/${h}`, { cookie: mine! })))
  t.same(answers.map((r) => r.status).filter((s) => s !== 200), [], 'all 200')
  t.same(await Promise.all(others.map(async (cookie) => await whoIs(base, cookie))), others.map(() => null), 'every revoked session is anonymous')
  t.equal(await whoIs(base, mine!), 'alice')
  const listed = (await (await call(base, 'GET', '/_server/account/sessions', { cookie: mine! })).json()) as { sessions: unknown[] }
  t.equal(listed.sessions.length, 1)
})

test('30 parallel revocations of one session, raced by its own writes: one or more 200, the rest 404, never back', async (t) => {
  const base = await started(t)
  const [mine, victim] = await signIns(base, 2)
  const target = await handle(base, victim!)
  const [revokes, writes] = await Promise.all([
    Promise.all(Array.from({ length: 30 }, async () => (await call(base, 'DELETE', `/_server/account/sessions/${target}`, { cookie: mine! })).status)),
    Promise.all(Array.from({ length: 30 }, async () => {
      const res = await call(base, 'POST', '/test/write', { cookie: victim! })
      return { status: res.status, cookie: cookieFrom(res.headers.getSetCookie()) }
    }))
  ])
  t.ok(revokes.includes(200), `revoked (${revokes.filter((s) => s === 200).length} × 200)`)
  t.same(revokes.filter((s) => s !== 200 && s !== 404), [], 'the others found it gone: 404')
  t.same(writes.filter((w) => w.status !== 200), [], 'the writes in flight were answered')
  t.equal(await whoIs(base, victim!), null, 'the revoked session stays revoked')
  // A write that came after the revocation starts an anonymous session of its own: never alice's.
  for (const { cookie } of writes) if (cookie !== undefined && cookie !== victim) t.equal(await whoIs(base, cookie), null)
  t.equal(await whoIs(base, mine!), 'alice')
})

test('30 sessions sign out in parallel, each raced by writes and reads of its own: all anonymous after', async (t) => {
  const base = await started(t)
  const cookies = await signIns(base, 30)
  const outcomes = await Promise.all(cookies.map(async (cookie, i) => {
    const form = i % 2 === 0
    const [out] = await Promise.all([
      form
        ? fetch(`${base}/_server/account/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: '', redirect: 'manual' })
        : call(base, 'POST', '/_server/account/logout', { cookie }),
      call(base, 'POST', '/test/write', { cookie }),
      call(base, 'GET', '/whoami', { cookie })
    ])
    return { status: out.status, location: out.headers.get('location'), after: await whoIs(base, cookie) }
  }))
  t.same(outcomes.filter((o, i) => o.status !== (i % 2 === 0 ? 303 : 200)), [], 'JSON 200, forms 303')
  t.same(outcomes.filter((o, i) => i % 2 === 0 && o.location !== '/_server/login_page'), [], 'forms go to the login page')
  t.same(outcomes.map((o) => o.after), cookies.map(() => null), 'anonymous right after its own sign-out')
  t.same(await Promise.all(cookies.map(async (cookie) => await whoIs(base, cookie))), cookies.map(() => null), 'and still, once everything settled')
})

test('20 sessions call revoke-others at once: all answered, at most one session is left', async (t) => {
  const base = await started(t)
  const cookies = await signIns(base, 20)
  const statuses = await Promise.all(cookies.map(async (cookie) => (await call(base, 'POST', '/_server/account/sessions/revoke-others', { cookie })).status))
  // A session ended by another's call before its own request loaded it is anonymous: 401.
  t.same(statuses.filter((s) => s !== 200 && s !== 401), [], `200 or 401 (${statuses.filter((s) => s === 200).length} × 200)`)
  const left = (await Promise.all(cookies.map(async (cookie) => await whoIs(base, cookie)))).filter((who) => who !== null)
  t.ok(left.length <= 1, `at most one left (${left.length})`)
})

test('24 sessions change the password at once: the password is one that was answered 200; at most one session, its own, is left', async (t) => {
  const sessionStore = new MemorySessionStore()
  const base = await started(t, { sessionStore, maxAttempts: 1000, addressMaxAttempts: 4000 })
  // Four more sessions that make no request of their own, so only the change itself can end them.
  const all = await signIns(base, 28)
  const cookies = all.slice(0, 24)
  const bystanders = all.slice(24)
  const chosen = cookies.map((_c, i) => `${NEW_PASSWORD}-${i}`)
  const answers = await Promise.all(cookies.map(async (cookie, i) => {
    const res = await call(base, 'POST', '/_server/account/password', { cookie }, { current_password: 'alice-pass', new_password: chosen[i] })
    const body = await res.json() as { code?: string }
    return { status: res.status, code: body.code, cookie: cookieFrom(res.headers.getSetCookie()) }
  }))
  const counts = answers.reduce<Record<string, number>>((all, a) => ({ ...all, [a.status]: (all[a.status] ?? 0) + 1 }), {})
  t.comment(`answers: ${JSON.stringify(counts)}`)
  t.ok((counts[200] ?? 0) >= 1, 'at least one change went through')
  t.same(answers.filter((a) => a.status === 403 && a.code !== 'GATEHOUSE_SERVER_WRONG_PASSWORD'), [], '403s are wrong current passwords (changed meanwhile)')
  t.same(answers.filter((a) => a.status === 409 && a.code !== 'GATEHOUSE_SERVER_PASSWORD_CONFLICT'), [], '409s are changes overtaken')
  // A session another change ended (or whose stamp went stale) before its request was read is anonymous.
  t.same(answers.filter((a) => a.status === 401 && a.code !== 'GATEHOUSE_SERVER_NOT_SIGNED_IN'), [], '401s are sessions already ended')
  t.same(answers.filter((a) => ![200, 401, 403, 409].includes(a.status)), [], 'nothing else (no 500, no 503)')
  // Every session signed in before the changes existed when the first one went through: the store holds none of them.
  const stored = [...cookies, ...bystanders].filter((cookie) => sessionStore.get(sessionKey(cookie.slice('session_id='.length))) !== null)
  t.equal(stored.length, 0, `no session from before the changes left in the store (${stored.length}, ${stored.filter((c) => bystanders.includes(c)).length} of them bystanders)`)

  const works = async (password: string) => (await call(base, 'POST', '/_server/login', {}, { identity: 'alice', password })).status === 200
  const current = []
  for (const [i, password] of chosen.entries()) if (await works(password)) current.push(i)
  t.equal(current.length, 1, 'exactly one of the new passwords signs in')
  t.equal(answers[current[0]!]!.status, 200, 'and its change was answered 200')
  t.notOk(await works('alice-pass'), 'the old one no longer does')

  const signedIn: string[] = []
  for (const cookie of [...cookies, ...answers.flatMap((a) => a.cookie === undefined ? [] : [a.cookie])]) if (await whoIs(base, cookie) !== null) signedIn.push(cookie)
  t.ok(signedIn.length <= 1, `at most one session left (${signedIn.length})`)
  if (signedIn.length === 1) t.equal(signedIn[0], answers[current[0]!]!.cookie, 'the one whose password stands')
})
