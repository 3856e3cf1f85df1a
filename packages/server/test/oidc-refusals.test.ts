import { test, type Test } from 'tap'
import pino from 'pino'
import type { FastifyBaseLogger } from 'fastify'
import { AppServer } from '@fastify-gatehouse/server'
import { CookieClient } from './helpers/cookie-client.js'
import { freePort, startIdp } from './helpers/idp.js'
import { startRogueIdp, type RogueIdp } from './helpers/rogue-idp.js'

// Each refusal of the OIDC callback: 400 with a clear message, no session,
// and a log line naming the real cause. The flows run against oidc-provider
// where a correct provider can produce the case (a tampered request, a
// mismatched redirect URI); the rest against helpers/rogue-idp.ts, a
// controllable provider that sends what a correct one never would.

interface LogLine { level: number, msg: string, cause?: Record<string, unknown> }
interface Rp { server: AppServer, base: string, lines: LogLine[], raw: string[] }

const SECRET = 'gatehouse-client-secret'

async function startRp (t: Test, name: string, provider: { issuer: string, clientId: string, clientSecret: string }, port?: number): Promise<Rp> {
  port ??= await freePort()
  const base = `http://localhost:${port}`
  const raw: string[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => { raw.push(line) } }) as FastifyBaseLogger
  const server = new AppServer({
    externalUrl: base,
    login: true,
    logger,
    // The provider's three keys only: a test provider object has more, and
    // an unknown provider option is a boot error.
    serverApp: { oidc: { [name]: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, tags: 'staff' } }, allowInsecureIssuers: true }
  })
  server.register(async (app) => {
    app.get('/private', { authRule: 'staff' }, async (req) => ({ you: req.scope.auth?.identity }))
    app.get('/recent', { authRule: 'staff', fresh: 3600 }, async (req) => ({ at: req.scope.auth?.authenticatedAt }))
  })
  await server.serve('localhost', port)
  t.teardown(() => server.close())
  return { server, base, raw, get lines () { return raw.map((l) => JSON.parse(l) as LogLine) } }
}

const isCallback = (rp: Rp) => (url: string): boolean => url.startsWith(`${rp.base}/_server/auth/`) && url.includes('/callback')

/** Start → oidc-provider's login and consent forms → the callback URL, not visited. */
async function toCallback (client: CookieClient, rp: Rp, tamper: (authorize: URL) => void = () => {}): Promise<URL> {
  const start = await client.request(`${rp.base}/_server/auth/oidc:local/start?next=%2Fprivate`)
  const authorize = new URL(start.headers.get('location')!)
  tamper(authorize)
  const done = isCallback(rp)
  let { url } = await client.follow(authorize.href, {}, done)
  if (!done(url)) ({ url } = await client.follow(url, { form: { prompt: 'login', login: 'alice', password: 'any' } }, done))
  if (!done(url)) ({ url } = await client.follow(url, { form: { prompt: 'consent' } }, done))
  if (!done(url)) throw new Error(`never reached the callback: ${url}`)
  return new URL(url)
}

/** Rogue provider: start → its authorization endpoint (approves at once) → the callback URL, not visited. */
async function toRogueCallback (client: CookieClient, rp: Rp): Promise<URL> {
  const { url } = await client.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate`, {}, isCallback(rp))
  return new URL(url)
}

// The page escapes what it shows; the messages are fixed sentences.
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

/** The refusal as a browser sees it, and no session afterwards. */
async function assertRefused (t: Test, rp: Rp, client: CookieClient, callback: URL, message: string, cause: RegExp): Promise<void> {
  const before = rp.raw.length
  const res = await client.request(callback.href)
  t.equal(res.status, 400, 'refused')
  t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', 'a browser gets a page')
  t.match(res.headers.get('content-security-policy'), /^default-src 'none'/)
  t.equal(res.headers.get('cache-control'), 'no-store')
  t.equal(res.headers.get('location'), null, 'no redirect')
  const page = await res.text()
  t.match(page, /<h1>Sign-in failed<\/h1>/)
  t.ok(page.includes(`<p id="error" role="alert">${escapeHtml(message)}</p>`), 'the reason, escaped')
  t.match(page, '<a class="button" href="/_server/login_page">Back to sign in</a>')
  t.notMatch(page, 'Signed in as', 'nobody is signed in')
  const protectedRoute = await client.request(`${rp.base}/private`)
  t.equal(protectedRoute.status, 302, 'the session cookie does not authenticate')
  t.equal(protectedRoute.headers.get('location'), '/_server/login_page?next=%2Fprivate')
  const logged = rp.lines.slice(before).filter((l) => l.level === 40 && /^oidc:\w+: callback refused: /.test(l.msg))
  t.equal(logged.length, 1, 'one warning for the refusal')
  t.match(`${logged[0]?.msg} ${JSON.stringify(logged[0]?.cause ?? {})}`, cause, 'the log names the real cause')
}

test('wrong state: a real answer whose state matches no transaction', async (t) => {
  const port = await freePort()
  const idp = await startIdp([`http://localhost:${port}/_server/auth/oidc:local/callback`])
  t.teardown(() => idp.close())
  const rp = await startRp(t, 'local', { issuer: idp.issuer, clientId: 'gatehouse', clientSecret: SECRET }, port)
  const client = new CookieClient()
  const callback = await toCallback(client, rp)
  t.ok(callback.searchParams.get('code'), 'a real code from the provider')
  callback.searchParams.set('state', 'x'.repeat(43))
  await assertRefused(t, rp, client, callback, 'No sign-in is in progress for this answer; start again', /state matches no sign-in in progress/)
})

test('tampered nonce: the id_token carries a nonce this browser did not mint', async (t) => {
  const port = await freePort()
  const idp = await startIdp([`http://localhost:${port}/_server/auth/oidc:local/callback`])
  t.teardown(() => idp.close())
  const rp = await startRp(t, 'local', { issuer: idp.issuer, clientId: 'gatehouse', clientSecret: SECRET }, port)
  const client = new CookieClient()
  const callback = await toCallback(client, rp, (authorize) => authorize.searchParams.set('nonce', 'attacker-chosen-nonce-0123456789'))
  await assertRefused(t, rp, client, callback, 'The sign-in could not be completed', /"nonce" claim/)
})

test('RFC 9207: an iss response parameter naming another issuer is refused (mix-up)', async (t) => {
  const port = await freePort()
  const idp = await startIdp([`http://localhost:${port}/_server/auth/oidc:local/callback`])
  t.teardown(() => idp.close())
  const rp = await startRp(t, 'local', { issuer: idp.issuer, clientId: 'gatehouse', clientSecret: SECRET }, port)
  const client = new CookieClient()
  const callback = await toCallback(client, rp)
  t.equal(callback.searchParams.get('iss'), idp.issuer, 'oidc-provider sends iss')
  callback.searchParams.set('iss', 'https://evil.example')
  await assertRefused(t, rp, client, callback, 'The sign-in could not be completed', /"iss" \(issuer\) response parameter/)
})

test('redirect_uri mismatch: the provider refuses, our callback is never reached', async (t) => {
  const port = await freePort()
  // The client is registered with another redirect URI than externalUrl yields.
  const idp = await startIdp([`http://localhost:${port}/elsewhere/callback`])
  t.teardown(() => idp.close())
  const rp = await startRp(t, 'local', { issuer: idp.issuer, clientId: 'gatehouse', clientSecret: SECRET }, port)
  const client = new CookieClient()
  const { response, url } = await client.follow(`${rp.base}/_server/auth/oidc:local/start?next=%2Fprivate`)
  t.equal(response.status, 400, "the provider's error page")
  t.ok(url.startsWith(`${idp.issuer}/`), 'shown by the provider')
  t.match(await response.text(), /invalid_redirect_uri.*redirect_uri did not match any of the client&#39;s registered redirect_uris/s)
  t.notOk(client.visited.some(isCallback(rp)), 'our callback is never reached')
  t.equal((await client.request(`${rp.base}/private`)).status, 302, 'not signed in')
})

interface Rogue { idp: RogueIdp, rp: Rp }
async function rogue (t: Test): Promise<Rogue> {
  const port = await freePort()
  const idp = await startRogueIdp(`http://localhost:${port}/_server/auth/oidc:rogue/callback`)
  t.teardown(() => idp.close())
  const rp = await startRp(t, 'rogue', idp, port)
  return { idp, rp }
}

test('the controllable provider, behaving: signed in (so each refusal below is caused by its one misbehaviour)', async (t) => {
  const { rp } = await rogue(t)
  const client = new CookieClient()
  const { response, url } = await client.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate`)
  t.equal(url, `${rp.base}/private`)
  t.same(await response.json(), { you: 'alice' })
})

test('reused code: the provider refuses the second exchange', async (t) => {
  const { idp, rp } = await rogue(t)
  const first = new CookieClient()
  const { url } = await first.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate`)
  t.equal(url, `${rp.base}/private`, 'the first exchange signs in')
  // The code, leaked, pasted into a fresh sign-in of another browser.
  const other = new CookieClient()
  const start = await other.request(`${rp.base}/_server/auth/oidc:rogue/start`)
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!
  const callback = new URL(`${rp.base}/_server/auth/oidc:rogue/callback`)
  callback.search = new URLSearchParams({ code: idp.codes[0]!, state, iss: idp.issuer }).toString()
  await assertRefused(t, rp, other, callback, 'The sign-in could not be completed', /invalid_grant.*authorization code already used/)
})

const idTokenCases: Array<{ name: string, misbehave: RogueIdp['misbehave'], cause: RegExp }> = [
  { name: 'wrong issuer in the id_token', misbehave: { claims: { iss: 'https://evil.example' } }, cause: /"iss" \(issuer\) claim/ },
  { name: 'wrong audience in the id_token', misbehave: { claims: { aud: 'another-client' } }, cause: /"aud" \(audience\) claim/ },
  { name: 'expired id_token', misbehave: { claims: { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 } }, cause: /"exp" \(expiration time\) claim/ },
  { name: 'tampered nonce in the id_token', misbehave: { claims: { nonce: 'not-the-nonce-we-sent' } }, cause: /"nonce" claim/ },
  { name: 'forged claim: sub changed after signing', misbehave: { forgeAfterSigning: true }, cause: /signature verification failed/ },
  { name: 'RFC 9207 iss response parameter of another issuer', misbehave: { issParameter: 'https://evil.example' }, cause: /"iss" \(issuer\) response parameter/ }
]

for (const { name, misbehave, cause } of idTokenCases) {
  test(`refused: ${name}`, async (t) => {
    const { idp, rp } = await rogue(t)
    idp.misbehave = misbehave
    const client = new CookieClient()
    const callback = await toRogueCallback(client, rp)
    await assertRefused(t, rp, client, callback, 'The sign-in could not be completed', cause)
  })
}

test('a refusal answers JSON to a non-browser caller, and no log line holds the code, a token or the client secret', async (t) => {
  const { idp, rp } = await rogue(t)
  idp.misbehave = { forgeAfterSigning: true }
  const client = new CookieClient()
  const callback = await toRogueCallback(client, rp)
  const res = await client.request(callback.href, { accept: 'application/json' })
  t.equal(res.status, 400)
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
  t.same(await res.json(), { statusCode: 400, code: 'GATEHOUSE_SERVER_OIDC_FAILED', error: 'Bad Request', message: 'The sign-in could not be completed' })
  t.equal(idp.issued.length, 2, 'tokens were issued')
  const log = rp.raw.join('\n')
  t.match(log, /callback refused: JWT signature verification failed/)
  for (const secret of [...idp.codes, ...idp.issued, ...idp.issued[1]!.split('.').slice(1), idp.clientSecret]) {
    t.notOk(log.includes(secret), `never logged: ${secret.slice(0, 6)}…`)
  }
})

// D-OIDC-12: the provider's SSO session may be days old; its auth_time, not
// the callback, is when the user signed in.
const seconds = (ms: number) => Math.floor(ms / 1000)

test('re-authentication: an id_token whose auth_time predates the start, is in the future or is missing, is refused', async (t) => {
  const { idp, rp } = await rogue(t)
  const until = isCallback(rp)
  idp.misbehave = { claims: { auth_time: seconds(Date.now()) - 3600 } }
  const old = new CookieClient()
  const { url } = await old.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate&reauth=1`, {}, until)
  await assertRefused(t, rp, old, new URL(url), 'The provider did not ask you to sign in again', /a re-authentication, but the id_token's auth_time predates its start/)
  idp.misbehave = {}
  const none = new CookieClient()
  const { url: noAuthTime } = await none.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate&reauth=1`, {}, until)
  await assertRefused(t, rp, none, new URL(noAuthTime), 'The provider did not ask you to sign in again', /a re-authentication, but the id_token's auth_time is missing or in the future/)
  idp.misbehave = { claims: { auth_time: seconds(Date.now()) + 3600 } }
  const future = new CookieClient()
  const { url: later } = await future.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate&reauth=1`, {}, until)
  await assertRefused(t, rp, future, new URL(later), 'The provider did not ask you to sign in again', /a re-authentication, but the id_token's auth_time is missing or in the future/)
})

test('a sign-in counts from the provider\'s auth_time: an old provider session does not pass fresh, a re-login does', async (t) => {
  const { idp, rp } = await rogue(t)
  const client = new CookieClient()
  idp.misbehave = { claims: { auth_time: seconds(Date.now()) - 7200 } }
  const { url } = await client.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate`)
  t.equal(url, `${rp.base}/private`, 'signed in silently, by the provider\'s two-hour-old session')
  const stale = await client.request(`${rp.base}/recent`, { accept: 'application/json' })
  t.equal(stale.status, 401, 'fresh: 3600 refuses a sign-in 7200 s ago')
  t.match(await stale.json(), { code: 'GATEHOUSE_CORE_REAUTHENTICATE', max_age: 3600 })
  const browser = await client.request(`${rp.base}/recent`)
  t.equal(browser.status, 302)
  t.equal(browser.headers.get('location'), '/_server/login_page?next=%2Frecent&reauth=1', 'a browser is asked to confirm it\'s them')
  const page = await (await client.request(`${rp.base}${browser.headers.get('location')!}`)).text()
  const href = /<a class="button" href="([^"]+)">Sign in with rogue<\/a>/.exec(page)?.[1]?.replace(/&amp;/g, '&')
  t.equal(href, '/_server/auth/oidc:rogue/start?next=%2Frecent&reauth=1', 'the provider\'s button re-authenticates')

  const relogin = seconds(Date.now())
  idp.misbehave = { claims: { auth_time: relogin } }
  const { response, url: back } = await client.follow(`${rp.base}${href!}`)
  t.equal(back, `${rp.base}/recent`)
  t.equal(response.status, 200, 'a login at the provider after the start passes')
  t.same(await response.json(), { at: relogin * 1000 }, 'authenticated at auth_time')
})

test('a sign-in whose id_token has no auth_time has no known sign-in time: fresh routes ask for a re-authentication', async (t) => {
  const { rp } = await rogue(t)
  const client = new CookieClient()
  const { url } = await client.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fprivate`)
  t.equal(url, `${rp.base}/private`, 'signed in')
  const res = await client.request(`${rp.base}/recent`, { accept: 'application/json' })
  t.equal(res.status, 401)
  t.match(await res.json(), { code: 'GATEHOUSE_CORE_REAUTHENTICATE' })
})
