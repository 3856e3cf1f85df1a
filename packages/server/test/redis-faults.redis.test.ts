import { test } from 'tap'
import { RedisLockoutStore, RedisSessionStore } from '@fastify-gatehouse/redis'
import { needRedisServer } from '../../redis/test/helpers/redis.js'
import { RedisProcess } from '../../redis/test/helpers/redis-process.js'
import { freePort } from './helpers/idp.js'
import { get, login, sessionCookie, startInstance } from './helpers/redis-servers.js'
import { waitUntil } from '../../../test-helpers/wait.js'

// Starts and kills a redis-server of its own on a free port.
const redis = await needRedisServer()
// A paused Redis answers nothing: without commandTimeout a request would
// wait for it for ever. So "not hung" is asserted by order, not by a time
// bound a busy machine could miss: the 503 arrives while Redis is still
// paused (or down), before the test resumes it; each request's own ceiling
// (hangSignal) only bounds a hang (D-TOOLING-17).

async function timed (call: () => Promise<Response>): Promise<{ response: Response, ms: number }> {
  const started = performance.now()
  const response = await call()
  return { response, ms: performance.now() - started }
}

/** Polls `call` until it answers `status` (up to the hang ceiling); resolves with the answer. */
async function until (status: number, call: () => Promise<Response>): Promise<Response> {
  let last: Response | undefined
  await waitUntil(async () => { last = await call(); return last.status === status }, { everyMs: 200, what: `a ${status}` })
  return last!
}

test('Redis paused, killed and restarted mid-run: 503s within bounds, header auth unaffected, recovery by itself', redis, async (t) => {
  const rejections: unknown[] = []
  const onRejection = (reason: unknown): void => { rejections.push(reason) }
  process.on('unhandledRejection', onRejection)
  const server = new RedisProcess(await freePort())
  await server.start()
  const sessionStore = new RedisSessionStore({ url: server.url, commandTimeout: 2000, connectTimeout: 2000 })
  const lockoutStore = new RedisLockoutStore({ url: server.url, commandTimeout: 2000, connectTimeout: 2000 })
  const { server: app, base } = await startInstance({ sessionStore, lockoutStore })
  t.teardown(async () => {
    process.off('unhandledRejection', onRejection)
    await server.stop()
    await app.close()
    await sessionStore.close()
    await lockoutStore.close()
  })
  await sessionStore.ready()
  await lockoutStore.ready()
  const bearer = { authorization: 'Bearer ci-token' }

  // commandTimeout is short for the test: a process starved of CPU for longer
  // can see its own timer fire before Redis's reply is read, so the first
  // sign-in is polled.
  const signedIn = await until(200, () => login(base, 'alice', 'alice-pass'))
  t.equal(signedIn.status, 200)
  const cookie = sessionCookie(signedIn)
  const alice = { auth: { identity: 'alice', tags: ['member'], backend: 'session' } }
  t.same(await (await get(base, '/me', { cookie })).json(), alice)

  await t.test('paused (SIGSTOP): session requests 503 within the bound; header-authenticated requests work', async (t) => {
    server.pause()
    const session = await timed(() => get(base, '/me', { cookie }))
    t.equal(session.response.status, 503, `503 while Redis is still paused, in ${Math.round(session.ms)} ms: not hung`)
    t.equal(session.response.headers.get('retry-after'), '5')
    t.same(await session.response.json(), { statusCode: 503, code: 'GATEHOUSE_SESSION_STORE_UNAVAILABLE', error: 'Service Unavailable', message: 'Session store unavailable' })

    const header = await get(base, '/orders', bearer)
    t.equal(header.status, 200, 'a bearer token needs no Redis')
    t.same(await header.json(), { for: 'ci' })
    t.same(await (await get(base, '/me')).json(), { auth: null }, 'an anonymous request without a cookie needs no Redis')

    const signIn = await timed(() => login(base, 'alice', 'alice-pass'))
    t.equal(signIn.response.status, 503, `a login needs the lockout store: 503 while Redis is still paused, in ${Math.round(signIn.ms)} ms`)
    t.match(await signIn.response.json(), { statusCode: 503, code: 'GATEHOUSE_REDIS_UNAVAILABLE', message: 'Redis unavailable: try again shortly' })
    t.equal(signIn.response.headers.get('retry-after'), '5')
  })

  await t.test('resumed (SIGCONT): the same session works again, nothing was dropped', async (t) => {
    server.resume()
    const back = await until(200, () => get(base, '/me', { cookie }))
    t.same(await back.json(), alice, 'the session from before the pause')
    t.same(await (await get(base, '/orders', { cookie })).json(), { for: 'alice' })
  })

  await t.test('killed (SIGKILL): 503 at once while it is down; header auth works', async (t) => {
    await server.kill()
    const session = await timed(() => get(base, '/me', { cookie }))
    t.equal(session.response.status, 503, `503 while Redis is down, in ${Math.round(session.ms)} ms`)
    t.equal((await session.response.json() as { code: string }).code, 'GATEHOUSE_SESSION_STORE_UNAVAILABLE')
    t.equal((await get(base, '/orders', bearer)).status, 200)
    const signIn = await login(base, 'alice', 'alice-pass')
    t.equal(signIn.status, 503)
    t.equal((await signIn.json() as { code: string }).code, 'GATEHOUSE_REDIS_UNAVAILABLE')
  })

  await t.test('restarted on the same port: service resumes by itself', async (t) => {
    await server.start()
    const signIn = await until(200, () => login(base, 'alice', 'alice-pass'))
    const fresh = sessionCookie(signIn)
    t.same(await (await get(base, '/me', { cookie: fresh })).json(), alice, 'a new session works')
    // With no persistence the restart lost the data: the old cookie is now
    // unknown, an anonymous request (never a 500 nor a 503).
    const old = await get(base, '/me', { cookie })
    t.equal(old.status, 200)
    t.same(await old.json(), { auth: null })
  })

  t.same(rejections, [], 'no unhandled rejection')
})
