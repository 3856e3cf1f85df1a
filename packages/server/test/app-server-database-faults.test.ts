// PostgreSQL away under a running AppServer (issue 15, item 5), on a
// private cluster (never the shared one): a credential the instance has
// cached keeps working, everything that needs the database answers 503
// with a code and Retry-After (never a hang), and service resumes by
// itself when the database is back.
import { test } from 'tap'
import { randomBytes } from 'node:crypto'
import { AppServer } from '@fastify-gatehouse/server'
import { needTestCluster, testCluster } from '../../postgres/test/helpers/cluster.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'

const cluster = await needTestCluster()

const json = (method: string, body: unknown, cookie?: string): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
  body: JSON.stringify(body),
  signal: hangSignal()
})

test('the database stops and comes back under a serving AppServer', cluster, async (t) => {
  const db = await testCluster(t)
  // Short timeouts: a stopped cluster refuses at once anyway; they bound a half-open connection.
  const server = new AppServer({ logger: false, database: { url: db.url(), migrate: true, connectTimeout: 2000, statementTimeout: 2000 }, adminPassword: 'gatekeeper-pass-1' })
  server.register(async (app) => { app.get('/whoami', { config: { authRule: 'member' } }, async (request) => request.scope.auth) })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const login = async (identity: string, password: string): Promise<Response> => await fetch(`${base}/_server/login`, json('POST', { identity, password }))
  const cookieOf = (res: Response): string => res.headers.getSetCookie().find((l) => l.startsWith('session_id='))!.split(';')[0]!
  const withKey = async (key: string): Promise<Response> => await fetch(`${base}/whoami`, { headers: { authorization: `Bearer ${key}` }, signal: hangSignal() })

  const admin = cookieOf(await login('admin', 'gatekeeper-pass-1'))
  const issued = await fetch(`${base}/_server/tokens`, json('POST', { label: 'ci', tags: ['member'] }, admin))
  t.equal(issued.status, 201)
  const { key } = await issued.json() as { key: string }
  t.equal((await withKey(key)).status, 200, 'the key works, and is now cached by this instance')
  const neverSeen = `gak_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`

  await db.stop('fast')

  const cached = await withKey(key)
  // Failed once in CI (2026-11-29, 1 run in 6: a 503): the body names which code, for the next look.
  const refusal = cached.status === 200 ? '' : `: answered ${await cached.clone().text()}`
  t.equal(cached.status, 200, `database away: the cached key keeps working (within maxStale, 60 s)${refusal}`)
  t.match(await cached.json(), { identity: 'ci', backend: 'api_key' })

  const unavailable = async (res: Response, what: string, codes: string[]): Promise<void> => {
    t.equal(res.status, 503, `${what}: 503`)
    t.equal(res.headers.get('retry-after'), '5', `${what}: Retry-After`)
    const body = await res.json() as { code?: string }
    t.ok(codes.includes(body.code ?? ''), `${what}: ${body.code} is one of ${codes.join(', ')}`)
  }
  await unavailable(await withKey(neverSeen), 'a key this instance never saw', ['GATEHOUSE_POSTGRES_UNAVAILABLE'])
  await unavailable(await login('admin', 'gatekeeper-pass-1'), 'a login', ['GATEHOUSE_POSTGRES_UNAVAILABLE'])
  // The admin's session lives in the database too: the session component answers first.
  await unavailable(await fetch(`${base}/_server/tokens`, json('POST', { label: 'later', tags: ['member'] }, admin)), 'an admin write',
    ['GATEHOUSE_SESSION_STORE_UNAVAILABLE', 'GATEHOUSE_POSTGRES_UNAVAILABLE'])
  // Dozens at once: every one answered, none hangs.
  const burst = await Promise.all(Array.from({ length: 24 }, (_, i) => i % 2 === 0 ? withKey(neverSeen) : login('admin', 'wrong-password')))
  t.same(burst.map((r) => r.status), burst.map(() => 503), 'a burst of uncached requests: all 503')

  await db.start()
  const waited = await waitUntil(async () => (await login('admin', 'gatekeeper-pass-1')).status === 200, { what: 'logins to work again after the restart' })
  t.pass(`the database back: logins work again by themselves (${waited} ms)`)
  const again = cookieOf(await login('admin', 'gatekeeper-pass-1'))
  const later = await fetch(`${base}/_server/tokens`, json('POST', { label: 'later', tags: ['member'] }, again))
  t.equal(later.status, 201, 'admin writes work again')
  t.equal((await withKey((await later.json() as { key: string }).key)).status, 200, 'and the new key verifies')
  t.equal((await withKey(key)).status, 200, 'the old key still verifies')
  t.equal((await withKey(neverSeen)).status, 401, 'an unknown key is refused as usual, not a 503')
})
