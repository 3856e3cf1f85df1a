// Issue 25, item 2 (the last call out without a limit): an async
// `allowOrigins` function that never answered held every cross-origin
// request for ever. It now has `callbackTimeout` seconds, then 503
// GATEHOUSE_CORS_ORIGIN_CHECK_TIMEOUT with Retry-After; its late answer is
// ignored, and requests after it are not held. D-CORS-18.
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { corsPlugin, ORIGIN_CHECK_TIMEOUT, type CorsOptions } from '@fastify-gatehouse/cors'
import { hangSignal } from '../../../test-helpers/wait.js'

const GOOD = 'https://app.example.com'
const SLOW = 'https://slow.example.com'

/** A function that answers at once for GOOD, never (until released) for SLOW. */
function hangingCheck (): { allowOrigins: (origin: string) => Promise<boolean>, release: () => void, pending: () => number } {
  const held: Array<() => void> = []
  return {
    allowOrigins: async (origin) => {
      if (origin !== SLOW) return origin === GOOD
      return await new Promise<boolean>((resolve) => { held.push(() => { resolve(true) }) })
    },
    release: () => { for (const go of held.splice(0)) go() },
    pending: () => held.length
  }
}

async function listen (t: Test, app: FastifyInstance): Promise<string> {
  app.get('/data', async () => ({ data: 1 }))
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
}

interface Answer { status: number, code: string | undefined, retryAfter: string | null, allowOrigin: string | null, ms: number }

async function ask (base: string, origin: string, preflight = false): Promise<Answer> {
  const started = Date.now()
  const headers: Record<string, string> = { origin }
  if (preflight) headers['access-control-request-method'] = 'PUT'
  const res = await fetch(`${base}/data`, { method: preflight ? 'OPTIONS' : 'GET', headers, signal: hangSignal() })
  const text = await res.text()
  const body = text === '' ? {} : JSON.parse(text) as { code?: string }
  return { status: res.status, code: body.code, retryAfter: res.headers.get('retry-after'), allowOrigin: res.headers.get('access-control-allow-origin'), ms: Date.now() - started }
}

async function chain (cors: CorsOptions): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { cors: cors as Record<string, unknown> } }, { components: [errorsPlugin, corsPlugin] })
  return app
}

test('a hung allowOrigins function: 503 with its code and Retry-After after callbackTimeout, over a real socket', async (t) => {
  const check = hangingCheck()
  t.teardown(check.release)
  const base = await listen(t, await chain({ allowOrigins: check.allowOrigins, callbackTimeout: 0.2 }))

  for (const preflight of [false, true]) {
    const what = preflight ? 'preflight' : 'GET'
    const answer = await ask(base, SLOW, preflight)
    t.equal(answer.status, 503, `${what}: 503`)
    t.equal(answer.code, ORIGIN_CHECK_TIMEOUT, `${what}: the code`)
    t.equal(ORIGIN_CHECK_TIMEOUT, 'GATEHOUSE_CORS_ORIGIN_CHECK_TIMEOUT')
    t.equal(answer.retryAfter, '5', `${what}: Retry-After`)
    t.equal(answer.allowOrigin, null, `${what}: no CORS header (fail closed)`)
    t.ok(answer.ms >= 150, `${what}: not before the limit (${answer.ms} ms)`)
  }

  // Dozens of hung checks at once do not hold the requests behind them.
  const hung = await Promise.all(Array.from({ length: 30 }, async () => await ask(base, SLOW)))
  t.same(new Set(hung.map((a) => a.status)), new Set([503]), '30 parallel hung checks: each 503')
  t.equal(check.pending(), 32, 'every hung call is still pending in the application')
  const good = await ask(base, GOOD)
  t.equal(good.status, 200, 'an origin answered at once is served')
  t.equal(good.allowOrigin, GOOD)

  // The late answers (true) change nothing, and crash nothing.
  check.release()
  const after = await ask(base, GOOD)
  t.equal(after.status, 200)
  t.equal(after.allowOrigin, GOOD)
})

test('registered alone (no errors component), the timeout is still a 503 with Retry-After', async (t) => {
  const check = hangingCheck()
  t.teardown(check.release)
  const app = Fastify()
  await app.register(corsPlugin, { allowOrigins: check.allowOrigins, callbackTimeout: 0.05 })
  const base = await listen(t, app)
  const answer = await ask(base, SLOW)
  t.equal(answer.status, 503)
  t.equal(answer.code, ORIGIN_CHECK_TIMEOUT)
  t.equal(answer.retryAfter, '5')
})

test('a function that answers within the limit is not cut short; the default is 5 s', async (t) => {
  const app = await chain({ allowOrigins: async (origin) => { await new Promise((resolve) => setTimeout(resolve, 20)); return origin === GOOD } })
  const base = await listen(t, app)
  const answer = await ask(base, GOOD)
  t.equal(answer.status, 200)
  t.equal(answer.allowOrigin, GOOD)
  t.equal((await ask(base, 'https://other.example.com')).allowOrigin, null)
})

test('callbackTimeout out of bounds, or not a number, is a boot error naming it', async (t) => {
  for (const callbackTimeout of [0, 0.0001, 301, -1, '5' as unknown as number]) {
    await t.rejects(chain({ allowOrigins: async () => true, callbackTimeout }), /callbackTimeout/, `${JSON.stringify(callbackTimeout)}: refused`)
  }
})

test('a route cannot set callbackTimeout in config.cors: a boot error, not a silently ignored key', async (t) => {
  const app = Fastify()
  await app.register(corsPlugin, {})
  t.throws(() => app.get('/x', { config: { cors: { callbackTimeout: 1 } as Record<string, unknown> } }, async () => 'x'), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /config\.cors\.callbackTimeout: unknown option/ })
  await app.close()
})
