import { test, type Test } from 'tap'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FileUserStore } from '@fastify-gatehouse/files'
import { cleanPrefix, needRedis, REDIS_URL, testPrefix } from '../../redis/test/helpers/redis.js'
import { hangSignal } from '../../../test-helpers/wait.js'
import { collect, stopChild, waitForOutput } from '../../../test-helpers/child.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/gatehouse.ts', import.meta.url))
const APP = fileURLToPath(new URL('./fixtures/shop-app.ts', import.meta.url))
const tsx = ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE]
const redis = await needRedis()

async function serve (t: Test, dir: string): Promise<{ child: ChildProcessWithoutNullStreams, base: string, err: () => string }> {
  const child = spawn(process.execPath, [...tsx, 'serve', '--config', 'gatehouse.yaml', '--app', APP, '--port', '0'], { cwd: dir })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const base = (await waitForOutput(child, output, /serving at (http:\/\/127\.0\.0\.1:\d+)\//, { what: 'the "serving at" line' }))[1]!
  return { child, base, err: output.stderr }
}

const post = async (base: string, identity: string, password: string) => await fetch(`${base}/_server/login`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity, password }), signal: hangSignal()
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
  const [one, two] = await Promise.all([serve(t, dir), serve(t, dir)])

  const signedIn = await post(one.base, 'alice', 'alice-pass')
  t.equal(signedIn.status, 200)
  const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!
  const orders = await fetch(`${two.base}/orders`, { headers: { cookie }, signal: hangSignal() })
  t.equal(orders.status, 200, 'the second serve reads the session from Redis')
  t.same(await orders.json(), { for: 'alice' })

  t.equal((await post(one.base, 'alice', 'x')).status, 401)
  t.equal((await post(two.base, 'alice', 'x')).status, 401)
  const locked = await post(one.base, 'alice', 'alice-pass')
  t.equal(locked.status, 429, 'max_attempts 2 counted across both serves')
  // backoff 10 from the file (the default is 30), less the seconds since the
  // lock: a busy machine may take more than one between the two requests.
  const retryAfter = Number(locked.headers.get('retry-after'))
  t.ok(retryAfter >= 1 && retryAfter <= 10, `retry-after ${retryAfter}: at most backoff 10`)

  for (const { child, err } of [one, two]) {
    // Open Redis clients would keep it alive: stopChild fails at the hang ceiling.
    t.equal(await stopChild(child, 'SIGTERM'), 0, 'exits by itself: the Redis clients it opened are closed')
    t.match(err(), /stopping; waiting for requests in flight/)
    t.notMatch(err(), /not answering yet/)
  }
})
