import { test } from 'tap'
import { calculatePKCECodeChallenge } from 'openid-client'
import { AppServer, OidcMethod } from '@fastify-gatehouse/server'
import { CookieClient } from './helpers/cookie-client.js'
import { freePort, startIdp, type TestIdp } from './helpers/idp.js'

interface Rp { server: AppServer, base: string, idp: TestIdp }

async function start (options: { identityClaim?: string, scopes?: string } = {}): Promise<Rp> {
  const port = await freePort()
  const base = `http://localhost:${port}`
  const idp = await startIdp([`${base}/_server/auth/oidc:local/callback`])
  const server = new AppServer({
    logger: false,
    externalUrl: `${base}/`,
    login: true,
    serverApp: { oidc: { local: { issuer: idp.issuer, clientId: 'gatehouse', clientSecret: 'gatehouse-client-secret', tags: 'staff', label: 'Local IdP', ...options } }, allowInsecureIssuers: true }
  })
  server.register(async (app) => {
    app.get('/me', async (req) => ({ auth: req.scope.auth }))
    app.get('/recent', { fresh: 3600 }, async (req) => ({ at: req.scope.auth?.authenticatedAt }))
  })
  await server.serve('localhost', port)
  return { server, base, idp }
}

async function signIn (client: CookieClient, rp: Rp, account: string, next = '/me') {
  const start = await client.request(`${rp.base}/_server/auth/oidc:local/start?next=${encodeURIComponent(next)}`)
  const authorize = new URL(start.headers.get('location')!)
  // The provider's login form, then its consent form.
  let { url } = await client.follow(authorize.href)
  ;({ url } = await client.follow(url, { form: { prompt: 'login', login: account, password: 'any' } }))
  let last: Response | undefined
  if (url.includes('/interaction/')) ({ url, response: last } = await client.follow(url, { form: { prompt: 'consent' } }))
  return { start, authorize, url, last }
}

test('RFC 7636 Appendix B: the S256 code challenge', async (t) => {
  t.equal(await calculatePKCECodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')
})

test('happy path, headless: start → provider login → callback → signed in at next', async (t) => {
  const rp = await start()
  t.teardown(async () => { await rp.server.close(); await rp.idp.close() })
  const client = new CookieClient()
  const { start: res, authorize, url } = await signIn(client, rp, 'alice', '/me?x=1')
  t.equal(res.status, 302)
  t.equal(authorize.origin, rp.idp.issuer, 'to the provider')
  const params = Object.fromEntries(authorize.searchParams)
  t.match(params, { response_type: 'code', client_id: 'gatehouse', redirect_uri: `${rp.base}/_server/auth/oidc:local/callback`, scope: 'openid email profile', code_challenge_method: 'S256' })
  t.equal(params.max_age, '31536000', 'auth_time asked for; any provider session up to a year old will do')
  t.equal(params.prompt, undefined)
  t.match(params.state, /^[A-Za-z0-9_-]{20,}$/)
  t.match(params.nonce, /^[A-Za-z0-9_-]{20,}$/)
  t.match(params.code_challenge, /^[A-Za-z0-9_-]{43}$/)
  t.equal(url, `${rp.base}/me?x=1`, 'landed on next')
  const me = await client.request(`${rp.base}/me`)
  t.same(((await me.json()) as { auth: unknown }).auth, { identity: 'alice', tags: ['staff'], backend: 'session' })
  const recent = await client.request(`${rp.base}/recent`, { accept: 'application/json' })
  t.equal(recent.status, 200, 'an OIDC sign-in is a sign-in: a fresh route lets the session through')
  t.type(((await recent.json()) as { at: unknown }).at, 'number', 'the session avatar knows when')
  t.ok(client.visited.some((v) => v.startsWith(`${rp.base}/_server/auth/oidc:local/callback?code=`)), 'through the callback')
})

test('re-authentication: reauth=1 sends prompt=login&max_age=0, and the provider asks for a login it would otherwise skip', async (t) => {
  const rp = await start()
  t.teardown(async () => { await rp.server.close(); await rp.idp.close() })
  const client = new CookieClient()
  await signIn(client, rp, 'alice')
  // The provider's session signs in again silently: why a plain sign-in is no re-authentication.
  const silent = await client.follow(`${rp.base}/_server/auth/oidc:local/start?next=%2Fme`)
  t.equal(silent.url, `${rp.base}/me`, 'no login form on a plain sign-in')
  t.notOk(client.visited.slice(-6).some((v) => v.includes('/interaction/')), 'the provider showed nothing')

  const page = await (await client.request(`${rp.base}/_server/login_page?next=%2Frecent&reauth=1`)).text()
  t.match(page, '<a class="button" href="/_server/auth/oidc:local/start?next=%2Frecent&amp;reauth=1">Sign in with Local IdP</a>')
  t.match(await (await client.request(`${rp.base}/_server/login_page?next=%2Frecent`)).text(), '<a class="button" href="/_server/auth/oidc:local/start?next=%2Frecent">', 'no reauth on a plain login page')

  const res = await client.request(`${rp.base}/_server/auth/oidc:local/start?next=%2Frecent&reauth=1`)
  t.equal(res.status, 302)
  const authorize = new URL(res.headers.get('location')!)
  t.match(Object.fromEntries(authorize.searchParams), { prompt: 'login', max_age: '0', code_challenge_method: 'S256' })
  let { url } = await client.follow(authorize.href)
  t.match(url, /\/interaction\//, 'the provider asks for a login again')
  let last: Response
  ;({ url, response: last } = await client.follow(url, { form: { prompt: 'login', login: 'alice', password: 'any' } }))
  // Consent was given at the first sign-in: the login form is the only step.
  t.equal(url, `${rp.base}/recent`)
  t.equal(last.status, 200, 'after a real login the fresh route passes')
  t.type(((await last.json()) as { at: unknown }).at, 'number')
})

test('identityClaim email, and an unverified e-mail is refused', async (t) => {
  const rp = await start({ identityClaim: 'email' })
  t.teardown(async () => { await rp.server.close(); await rp.idp.close() })
  const alice = new CookieClient()
  await signIn(alice, rp, 'alice')
  t.same(((await (await alice.request(`${rp.base}/me`)).json()) as { auth: unknown }).auth, { identity: 'alice@example.com', tags: ['staff'], backend: 'session' })
  const mallory = new CookieClient()
  const { url, last: refused } = await signIn(mallory, rp, 'unverified')
  t.match(url, /\/callback\?/, 'stopped at the callback')
  t.equal(refused?.status, 400)
  t.match(await refused?.text(), /<p id="error" role="alert">The e-mail address is not verified by the identity provider<\/p>/)
  const last = await mallory.request(url)
  t.equal(last.status, 400)
  t.match(await last.text(), /<p id="error" role="alert">No sign-in is in progress for this answer; start again<\/p>/, 'replaying the callback finds no transaction')
  t.same(((await (await mallory.request(`${rp.base}/me`)).json()) as { auth: unknown }).auth, null, 'no session')
})

test('refusals: wrong state, no transaction (login CSRF), replay, hostile next', async (t) => {
  const rp = await start()
  t.teardown(async () => { await rp.server.close(); await rp.idp.close() })
  const victim = new CookieClient()
  const attacker = new CookieClient()
  // The attacker gets a valid callback URL for their own account...
  const { url: attackerCallback } = await signIn(attacker, rp, 'alice').then(async (r) => r).catch(() => ({ url: '' }))
  t.ok(attackerCallback.startsWith(`${rp.base}/`))
  // ...a callback the victim's browser opens has no transaction there.
  const forged = await victim.request(`${rp.base}/_server/auth/oidc:local/callback?code=stolen&state=whatever`)
  t.equal(forged.status, 400)
  t.same(((await (await victim.request(`${rp.base}/me`)).json()) as { auth: unknown }).auth, null)
  const noState = await victim.request(`${rp.base}/_server/auth/oidc:local/callback?code=x`)
  t.equal(noState.status, 400)
  const evil = new CookieClient()
  const { url } = await signIn(evil, rp, 'alice', '//evil.example')
  t.equal(url, `${rp.base}/`, 'next=//evil.example lands on /')
})

test('login_methods lists the provider, never its issuer or secret; the percent-encoded colon works', async (t) => {
  const rp = await start()
  t.teardown(async () => { await rp.server.close(); await rp.idp.close() })
  const client = new CookieClient()
  const methods = await (await client.request(`${rp.base}/_server/login_methods`)).text()
  t.same(JSON.parse(methods), { methods: [{ id: 'oidc:local', kind: 'redirect', label: 'Local IdP', url: '/_server/auth/oidc:local/start' }] })
  t.notMatch(methods, /gatehouse-client-secret|127\.0\.0\.1/)
  const encoded = await client.request(`${rp.base}/_server/auth/oidc%3Alocal/start`)
  t.equal(encoded.status, 302)
  t.match((await (await client.request(`${rp.base}/_server/login_page`)).text()), 'Sign in with Local IdP')
})

test('provider down at discovery: a clear 502, and it recovers', async (t) => {
  const port = await freePort()
  const server = new AppServer({
    logger: false,
    externalUrl: `http://localhost:${port}`,
    serverApp: { oidc: { down: { issuer: `http://127.0.0.1:${await freePort()}`, clientId: 'c', clientSecret: 's' } }, allowInsecureIssuers: true }
  })
  t.teardown(() => server.close())
  const res = await server.inject('/_server/auth/oidc:down/start')
  t.equal(res.statusCode, 502)
  t.same(res.json(), { statusCode: 502, code: 'GATEHOUSE_SERVER_OIDC_UNAVAILABLE', error: 'Bad Gateway', message: 'The identity provider cannot be reached' })
})

test('boot rules', async (t) => {
  const provider = { issuer: 'https://idp.example.com', clientId: 'c', clientSecret: 's' }
  const invalid = (message: string | RegExp) => ({ code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message })
  t.throws(() => new OidcMethod('google', provider, { externalUrl: undefined as never }), invalid(/^externalUrl: OIDC provider "google" needs an absolute http\(s\) URL/))
  t.throws(() => new OidcMethod('google', provider, { externalUrl: 'app.example.com' }), invalid(/^externalUrl: OIDC provider "google" needs an absolute http\(s\) URL/))
  t.throws(() => new OidcMethod('Bad Name', provider, { externalUrl: 'https://a.example' }), invalid(/^serverApp\.oidc: provider name "Bad Name" must be lower-case/))
  t.throws(() => new OidcMethod('g', { ...provider, clientSecret: '' }, { externalUrl: 'https://a.example' }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^serverApp\.oidc\.g\.clientSecret: / })
  t.throws(() => new OidcMethod('g', { issuer: 'https://idp.example.com', clientId: 'c' } as never, { externalUrl: 'https://a.example' }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'serverApp.oidc.g.clientSecret: is required' })
  t.equal(new OidcMethod('g', provider, { externalUrl: 'https://app.example.com//' }).redirectUri, 'https://app.example.com/_server/auth/oidc:g/callback', 'a trailing slash is not doubled')
  const server = new AppServer({ logger: false, serverApp: { oidc: { google: provider } } })
  await t.rejects(server.ready(), invalid(/^externalUrl: OIDC provider "google" needs/))
  await server.close()
})
