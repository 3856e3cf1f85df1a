// Issue 13, item 12: csrf decided "carries the session cookie" with a scan of
// its own, the session with @fastify/cookie's parser. `Cookie:  session_id
// = …` (odd spacing) passed csrf as cookie-less while the session still
// loaded it: a cross-site POST rode the victim's session. Now both use one
// parser: in every spelling, csrf refuses the cross-site request exactly
// when the session would have signed it in.
import { test } from 'tap'
import { request as httpRequest } from 'node:http'
import type { FastifyCookieOptions } from '@fastify/cookie'
import type { AddressInfo } from 'node:net'
import { build, components, HOST, REFUSED, signIn } from '../helpers/build.js'

const CROSS_SITE = { host: HOST, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }

// Spellings of a Cookie header around a valid session id `ID`.
const carrying = [
  'session_id=ID',
  'session_id =ID',
  'session_id= ID',
  '  session_id = ID',
  'session_id\t=\tID',
  'theme=dark;session_id=ID',
  'theme=dark ;  session_id = ID ; lang=en',
  ';session_id=ID',
  'theme=dark;;session_id=ID',
  'session_id=ID; session_id=other'
]
const notCarrying = [
  'xsession_id=ID',
  'session_idx=ID',
  'Session_id=ID',
  'session-id=ID',
  'session_id',
  'theme=dark',
  'other=ID'
]

test('csrf refuses a cross-site POST exactly when the session would load the cookie, in every spelling', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const id = (await signIn(app)).slice('session_id='.length)
  for (const spelling of [...carrying, ...notCarrying]) {
    const cookie = spelling.replace('ID', id)
    // What the session makes of it: a same-origin request to the same route.
    const own = await app.inject({ method: 'POST', url: '/account', headers: { host: HOST, cookie, 'sec-fetch-site': 'same-origin' } })
    const loaded = own.statusCode === 200 && (own.json() as { who: unknown }).who === 'alice'
    const forged = await app.inject({ method: 'POST', url: '/account', headers: { ...CROSS_SITE, cookie }, payload: 'amount=1000' })
    const refused = forged.statusCode === 403 && (forged.json() as { code: unknown }).code === REFUSED.code
    t.equal(loaded, carrying.includes(spelling), `${JSON.stringify(spelling)}: the session ${loaded ? 'loads' : 'ignores'} it`)
    t.equal(refused, loaded, `${JSON.stringify(spelling)}: csrf ${refused ? 'refuses' : 'passes'} the cross-site POST`)
    if (refused) t.same(forged.json(), REFUSED)
    else t.match(forged.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN' }, `${JSON.stringify(spelling)}: passed on, and anonymous`)
  }
})

test('a cookie csrf sees under the session\'s name but the session cannot use is still refused (the strict side)', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const cookie of ['session_id=', 'session_id=not-a-session-id', 'session_id=""']) {
    const forged = await app.inject({ method: 'POST', url: '/account', headers: { ...CROSS_SITE, cookie } })
    t.same(forged.json(), REFUSED, JSON.stringify(cookie))
  }
})

test('the app\'s own @fastify/cookie, registered before the chain, is the one parser', async (t) => {
  const { default: Fastify } = await import('fastify')
  const { fastifyCookie } = await import('@fastify/cookie')
  const { middlewareChain } = await import('@fastify-gatehouse/core')
  const app = Fastify()
  // A custom decode, to prove csrf reads cookies through the app's parser
  // (@fastify/cookie passes parseOptions to cookie's parse; its types name
  // only the serialize options).
  const parseOptions = { decode: (v: string) => v.replace(/^v1\./, '') } as unknown as FastifyCookieOptions['parseOptions']
  await app.register(fastifyCookie, { parseOptions })
  await middlewareChain(app, { middleware: { csrf: true, session: true } }, { components })
  app.post('/signin', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
  app.post('/account', async (req) => ({ who: req.scope.auth?.identity ?? null }))
  t.teardown(() => app.close())
  const signedIn = await app.inject({ method: 'POST', url: '/signin', headers: { host: HOST } })
  const id = String(signedIn.headers['set-cookie']).split(';')[0]!.slice('session_id='.length)
  const own = await app.inject({ method: 'POST', url: '/account', headers: { host: HOST, cookie: `session_id = v1.${id}` } })
  t.same(own.json(), { who: 'alice' }, 'the session reads it through the app\'s decode')
  const forged = await app.inject({ method: 'POST', url: '/account', headers: { ...CROSS_SITE, cookie: `session_id = v1.${id}` } })
  t.equal(forged.statusCode, 403, 'csrf sees it too')
})

test('over a real socket: a cross-site POST with an oddly spaced session cookie is refused, the session untouched', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const id = (await signIn(app)).slice('session_id='.length)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const post = async (headers: Record<string, string>): Promise<{ status: number, body: unknown }> => await new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/account', headers: { ...headers, 'content-length': '11' } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => { text += c }).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }))
    })
    req.on('error', reject)
    req.end('amount=1000')
  })
  const forged = await post({ ...CROSS_SITE, cookie: `theme=dark;  session_id = ${id}` })
  t.equal(forged.status, 403)
  t.same(forged.body, REFUSED)
  const own = await post({ host: HOST, 'sec-fetch-site': 'same-origin', 'content-type': 'text/plain', cookie: `theme=dark;  session_id = ${id}` })
  t.same(own, { status: 200, body: { method: 'POST', who: 'alice' } }, 'the same cookie from the site itself signs in')
})
