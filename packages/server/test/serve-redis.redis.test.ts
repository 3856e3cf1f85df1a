import { test, type Test } from 'tap'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FileUserStore } from '@fastify-gatehouse/auth'
import { cleanPrefix, needRedis, REDIS_URL, testPrefix } from '../../redis/test/helpers/redis.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/gatehouse.ts', import.meta.url))
const APP = fileURLToPath(new URL('./fixtures/shop-app.ts', import.meta.url))
const tsx = ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE]
const redis = await needRedis()

async function serve (t: Test, dir: string): Promise<{ child: ChildProcessWithoutNullStreams, base: string, err: () => string }> {
  const child = spawn(process.execPath, [...tsx, 'serve', '--config', 'gatehouse.yaml', '--app', APP, '--port', '0'], { cwd: dir })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let out = ''
  let err = ''
  child.stderr.on('data', (c) => { err += c })
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not started: ${out}${err}`)), 30_000)
    child.stdout.on('data', (c) => {
      out += c
      const match = /serving at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)
      if (match !== null) { clearTimeout(timer); resolve(match[1]!) }
    })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}: ${err}`)) })
  })
  return { child, base, err: () => err }
}

const post = async (base: string, identity: string, password: string) => await fetch(`${base}/_server/login`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity, password }), signal: AbortSignal.timeout(10_000)
})

test('gatehouse serve: sessions and lockout in Redis from the config file, shared by two serves, closed on SIGTERM', redis, async (t) => {
  const sessions = testPrefix('sess')
  const locks = testPrefix('lock')
  t.teardown(async () => { await cleanPrefix(sessions); await cleanPrefix(locks) })
  const dir = t.testdir({
    'gatehouse.yaml': `middleware:
  session:
    store: { redis: '${REDIS_URL}', prefix: '${sessions}' }
server_app:
  store: ./data
  login:
    max_attempts: 2
    backoff: 10
    store: { redis: '${REDIS_URL}', prefix: '${locks}' }
`
  })
  const users = await FileUserStore.open(join(dir, 'data', 'users.json'), { scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-pass', tags: 'ops' })
  const one = await serve(t, dir)
  const two = await serve(t, dir)

  const signedIn = await post(one.base, 'alice', 'alice-pass')
  t.equal(signedIn.status, 200)
  const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!
  const orders = await fetch(`${two.base}/orders`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) })
  t.equal(orders.status, 200, 'the second serve reads the session from Redis')
  t.same(await orders.json(), { for: 'alice' })

  t.equal((await post(one.base, 'alice', 'x')).status, 401)
  t.equal((await post(two.base, 'alice', 'x')).status, 401)
  const locked = await post(one.base, 'alice', 'alice-pass')
  t.equal(locked.status, 429, 'max_attempts 2 counted across both serves')
  t.equal(locked.headers.get('retry-after'), '10')

  for (const { child, err } of [one, two]) {
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    const [code, signal] = await once(child, 'exit')
    clearTimeout(timer)
    t.same([code, signal], [0, null], 'exits by itself: the Redis clients it opened are closed')
    t.match(err(), /stopping; waiting for requests in flight/)
    t.notMatch(err(), /not answering yet/)
  }
})

test('gatehouse serve: bad Redis stores in the config file are boot errors naming the key', async (t) => {
  const dir = t.testdir({
    'scheme.yaml': "middleware:\n  session:\n    store: { redis: 'http://127.0.0.1:6379' }\n",
    'string.yaml': "middleware:\n  session:\n    store: 'redis://127.0.0.1:6379'\n",
    'extra.yaml': "middleware:\n  session:\n    store: { redis: 'redis://127.0.0.1:6379', db: 2 }\n",
    'login.yaml': "server_app:\n  login:\n    store: { url: 'redis://127.0.0.1:6379' }\n",
    'loginurl.yaml': "server_app:\n  login:\n    store: { redis: 'redis://127.0.0.1:6379/x' }\n"
  })
  const run = async (file: string) => {
    const child = spawn(process.execPath, [...tsx, 'serve', '--config', file, '--port', '0'], { cwd: dir })
    t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
    let err = ''
    child.stderr.on('data', (c) => { err += c })
    const [code] = await once(child, 'exit')
    return { code, err }
  }
  t.match(await run('scheme.yaml'), { code: 1, err: /middleware\.session\.store\.redis: unsupported scheme "http:"/ })
  t.match(await run('string.yaml'), { code: 1, err: /middleware\.session\.store: expected \{ redis: / })
  t.match(await run('extra.yaml'), { code: 1, err: /middleware\.session\.store\.db: unknown option/ })
  t.match(await run('login.yaml'), { code: 1, err: /server_app\.login\.store\.redis: is required/ })
  const bad = await run('loginurl.yaml')
  t.match(bad, { code: 1, err: /server_app\.login\.store\.redis: the database must be a number/ })
  t.notMatch(bad.err, /\n\s+at /, 'no stack trace')
})
