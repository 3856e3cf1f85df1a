import { test, type Test } from 'tap'
import { request as httpRequest } from 'node:http'
import { gunzipSync, brotliDecompressSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import { authPlugin, type AuthOptions } from '@fastify-gatehouse/auth'
import { corsPlugin } from '@fastify-gatehouse/cors'
import { buildApp, quarterlyReport } from '../src/app.js'

const PASSWORD = 'correct-horse-staple'
const BOT_TOKEN = 'bot-token-0123456789abcdef'
const AUTH: AuthOptions = {
  basic: { ana: { password: PASSWORD, tags: 'staff,reports' }, ben: { password: 'battery-meadow-42', tags: 'staff' } },
  bearer: { 'reporting-bot': { token: BOT_TOKEN, tags: 'reports' } }
}
const basic = (user: string, password: string): string => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')
const FRONT_END = 'https://app.example.test'

/** What the app did before Gatehouse, and must go on doing at every step. */
async function ownBehaviourHolds (t: Test, app: FastifyInstance): Promise<void> {
  t.same((await app.inject('/health')).json(), { ok: true }, 'its own routes answer')
  const theme = await app.inject({ url: '/theme', headers: { cookie: 'theme=dark' } })
  t.same(theme.json(), { theme: 'dark' }, '@fastify/cookie still parses the cookies')
  t.match(String(theme.headers['set-cookie']), /^theme=light; Path=\/; HttpOnly; SameSite=Lax$/, 'and sets them')
  const bad = await app.inject({ method: 'POST', url: '/notes', payload: {} })
  t.equal(bad.statusCode, 400)
  t.same(bad.json(), { error: { status: 400, code: 'NOTE_TEXT', message: 'A note needs a text' } }, 'its error handler shapes its own errors')
  const saved = await app.inject({ method: 'POST', url: '/notes', payload: { text: 'hello' } })
  t.equal(saved.statusCode, 201)
  t.same(saved.json(), { saved: 'hello' })
}

test('step 0: the app before Gatehouse', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await ownBehaviourHolds(t, app)
  t.same((await app.inject('/reports')).json(), { error: { status: 401, code: 'NO_REPORTS_TOKEN', message: 'A reports token is required' } })
  t.equal((await app.inject({ url: '/reports', headers: { 'x-reports-token': 'reports-token-of-old' } })).json().rows.length, 400)
})

test('step 1: app.register(authPlugin) replaces the hand-written guard', async (t) => {
  const app = await buildApp({ auth: AUTH })
  t.teardown(() => app.close())
  await ownBehaviourHolds(t, app)

  const ana = await app.inject({ url: '/reports', headers: { authorization: basic('ana', PASSWORD) } })
  t.equal(ana.statusCode, 200)
  t.equal(ana.json().for, 'ana')
  const bot = await app.inject({ url: '/reports', headers: { authorization: `Bearer ${BOT_TOKEN}` } })
  t.equal(bot.json().for, 'reporting-bot', 'a bearer token too')
  t.same((await app.inject({ url: '/me', headers: { authorization: basic('ben', 'battery-meadow-42') } })).json(), { identity: 'ben' })

  // Gatehouse's refusals reach the app's own error handler, with their challenge.
  const wrong = await app.inject({ url: '/reports', headers: { authorization: basic('ana', 'not-her-password') } })
  t.equal(wrong.statusCode, 401)
  t.same(wrong.json(), { error: { status: 401, code: 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', message: 'Invalid user name or password' } })
  t.equal(wrong.headers['www-authenticate'], 'Basic realm="gatehouse", charset="UTF-8"')
  const anonymous = await app.inject('/reports')
  t.equal(anonymous.statusCode, 403, 'an anonymous caller is refused by the route rule')
  t.equal(anonymous.json().error.code, 'GATEHOUSE_CORE_FORBIDDEN')
  const benReports = await app.inject({ url: '/reports', headers: { authorization: basic('ben', 'battery-meadow-42') } })
  t.equal(benReports.statusCode, 403, 'a caller without the tag too')
  t.equal((await app.inject({ url: '/reports', headers: { 'x-reports-token': 'reports-token-of-old' } })).statusCode, 403, 'the old token is gone with its guard')
  t.equal((await app.inject('/health')).statusCode, 200, 'routes without a rule stay open')
})

test('step 2: app.register(corsPlugin) for the front end on another origin', async (t) => {
  const app = await buildApp({ auth: AUTH, cors: true })
  t.teardown(() => app.close())
  await ownBehaviourHolds(t, app)

  const preflight = await app.inject({ method: 'OPTIONS', url: '/reports', headers: { origin: FRONT_END, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } })
  t.equal(preflight.statusCode, 204, 'a preflight is answered before auth: it carries no credentials')
  t.equal(preflight.headers['access-control-allow-origin'], FRONT_END)
  t.equal(preflight.headers['access-control-allow-credentials'], 'true')
  t.match(preflight.headers['access-control-allow-headers'], /authorization/i)

  const ok = await app.inject({ url: '/reports', headers: { origin: FRONT_END, authorization: basic('ana', PASSWORD) } })
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['access-control-allow-origin'], FRONT_END)
  t.match(ok.headers.vary, /Origin/)
  const refused = await app.inject({ url: '/reports', headers: { origin: FRONT_END, authorization: basic('ana', 'nope-nope-nope') } })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['access-control-allow-origin'], FRONT_END, 'an error keeps the CORS headers, so the front end can read it')
  t.equal(refused.json().error.code, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS')
  const elsewhere = await app.inject({ url: '/health', headers: { origin: 'https://evil.example.test' } })
  t.equal(elsewhere.statusCode, 200)
  t.notOk('access-control-allow-origin' in elsewhere.headers, 'another origin gets no CORS header')
})

test('step 3: app.register(compressionPlugin) for the large answers', async (t) => {
  const app = await buildApp({ auth: AUTH, cors: true, compression: true })
  t.teardown(() => app.close())
  await ownBehaviourHolds(t, app)

  const expected = { for: 'ana', ...quarterlyReport() }
  const gzip = await app.inject({ url: '/reports', headers: { authorization: basic('ana', PASSWORD), 'accept-encoding': 'gzip' } })
  t.equal(gzip.statusCode, 200)
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.match(gzip.headers.vary, /Accept-Encoding/)
  t.same(JSON.parse(gunzipSync(gzip.rawPayload).toString()), expected)
  t.ok(gzip.rawPayload.length < JSON.stringify(expected).length / 4, 'and much smaller')
  const br = await app.inject({ url: '/reports', headers: { authorization: basic('ana', PASSWORD), 'accept-encoding': 'gzip, br' } })
  t.equal(br.headers['content-encoding'], 'br', 'Brotli first, as configured')
  t.same(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), expected)
  const small = await app.inject({ url: '/theme', headers: { 'accept-encoding': 'gzip' } })
  t.notOk('content-encoding' in small.headers, 'a small answer is left alone')
  t.ok(small.headers['set-cookie'], 'with its cookie')
  const refused = await app.inject({ url: '/reports', headers: { 'accept-encoding': 'gzip' } })
  t.equal(refused.statusCode, 403, 'refusals are unchanged')
  t.equal(refused.json().error.code, 'GATEHOUSE_CORE_FORBIDDEN')
})

test('all three over a real socket: the bytes on the wire', async (t) => {
  const app = await buildApp({ auth: AUTH, cors: true, compression: true })
  t.teardown(() => app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = new URL('/reports', base)
  const answer = await new Promise<{ status: number, headers: Record<string, unknown>, body: Buffer }>((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: basic('ana', PASSWORD), 'accept-encoding': 'gzip', origin: FRONT_END } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
  t.equal(answer.status, 200)
  t.equal(answer.headers['content-encoding'], 'gzip')
  t.equal(answer.headers['access-control-allow-origin'], FRONT_END)
  t.equal(Number(answer.headers['content-length']), answer.body.length, 'Content-Length is the compressed size')
  t.equal(JSON.parse(gunzipSync(answer.body).toString()).rows.length, 400)
  // Parallel callers over keep-alive sockets: each gets its own answer.
  const results = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
    const who = i % 3 === 0 ? basic('ana', PASSWORD) : i % 3 === 1 ? basic('ben', 'battery-meadow-42') : basic('ana', 'wrong-password-x')
    const res = await fetch(new URL('/me', base), { headers: { authorization: who } })
    return { i, status: res.status, body: await res.json() as { identity?: string, error?: { code: string } } }
  }))
  for (const { i, status, body } of results) {
    if (i % 3 === 2) t.same([status, body.error?.code], [401, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS'])
    else t.same([status, body.identity], [200, i % 3 === 0 ? 'ana' : 'ben'])
  }
})

test('registering cors after auth (the order of adoption) is named at boot', async (t) => {
  const warnings: string[] = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { warnings.push(JSON.parse(line).msg) } } } })
  await app.register(authPlugin, AUTH)
  await app.register(corsPlugin, { allowOrigins: [FRONT_END], allowCredentials: true })
  app.get('/me', { config: { authRule: 'staff' } }, async (request) => ({ identity: request.scope.auth?.identity }))
  t.teardown(() => app.close())
  await app.ready()
  t.match(warnings, [/^gatehouse: cors \(order 300\) was registered after auth \(order 400\)/])
  const refused = await app.inject({ url: '/me', headers: { origin: FRONT_END, authorization: basic('ana', 'wrong-password-x') } })
  t.equal(refused.statusCode, 401)
  t.notOk('access-control-allow-origin' in refused.headers, 'which is why: auth refused before cors ran')
})
