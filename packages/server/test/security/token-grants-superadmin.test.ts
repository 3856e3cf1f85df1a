// Issue 13, item 6: a `tags: ["SUPERADMIN"]` claim from an HS256 verifier
// with default options reached the admin API, and through it could create
// permanent SUPERADMIN users. Tokens grant no tags unless a verifier says
// which claim carries them (and never SUPERADMIN unless allowSuperadmin);
// tags in admin API bodies, CLI flags, config files and store input are
// limited to the rule grammar's alphabet.
import { test } from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { FastifyRequest } from 'fastify'
import { MemoryApiKeyStore, MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer, OidcMethod, RoutedApplication, route, runCli } from '@fastify-gatehouse/server'
import { hs256 } from '../helpers/credentials.js'
import { collect, stopChild, waitForOutput } from '../../../../test-helpers/child.js'

const SECRET = 'superadmin-test-hs256-secret-of-32-bytes'
const nowS = () => Math.floor(Date.now() / 1000)
const bearer = (claims: object) => ({ authorization: `Bearer ${hs256({ exp: nowS() + 60, ...claims }, SECRET)}` })

class Shop extends RoutedApplication {
  @route('/orders', { authRule: 'ops' })
  async orders (request: FastifyRequest) { return { for: request.scope.auth?.identity, tags: request.scope.auth?.tags } }
}

function build (verifier: Record<string, unknown> = {}) {
  return new AppServer({
    logger: false,
    primary: new Shop(),
    auth: { jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', ...verifier }] },
    users: new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } }),
    tokens: new MemoryApiKeyStore(),
    adminPassword: 'gatekeeper-pass',
    login: true
  })
}

async function adminCookie (server: AppServer): Promise<string> {
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'gatekeeper-pass' } })
  return String(login.headers['set-cookie']).split(';')[0]!
}

test('a default HS256 verifier: tags:["SUPERADMIN"] can neither use the admin API nor mint a SUPERADMIN user', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const mallory = bearer({ sub: 'mallory', tags: ['SUPERADMIN'] })
  const list = await server.inject({ url: '/_server/users', headers: mallory })
  t.equal(list.statusCode, 403)
  t.equal(list.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  const create = await server.inject({ method: 'POST', url: '/_server/users', headers: mallory, payload: { identity: 'mallory', password: 'takeover-pw', tags: ['SUPERADMIN'] } })
  t.equal(create.statusCode, 403, 'no permanent SUPERADMIN user')
  const key = await server.inject({ method: 'POST', url: '/_server/tokens', headers: mallory, payload: { label: 'mallory', tags: ['SUPERADMIN'] } })
  t.equal(key.statusCode, 403, 'no SUPERADMIN API key')
  t.equal((await server.inject({ url: '/orders', headers: bearer({ sub: 'mallory', tags: ['ops'] }) })).statusCode, 403, 'nor any other claimed tag')

  const cookie = await adminCookie(server)
  const users = await server.inject({ url: '/_server/users', headers: { cookie } })
  t.same(users.json().users.map((u: { identity: string }) => u.identity), ['admin'], 'the real admin sees nobody else')
  t.same((await server.inject({ url: '/_server/tokens', headers: { cookie } })).json().tokens, [])
})

test('tagsClaim + allowedTags: only the allowed tags reach the routes', async (t) => {
  const server = build({ tagsClaim: 'tags', allowedTags: ['ops'] })
  t.teardown(() => server.close())
  const claims = { sub: 'joe', tags: ['ops', 'SUPERADMIN', 'admin'] }
  const orders = await server.inject({ url: '/orders', headers: bearer(claims) })
  t.equal(orders.statusCode, 200)
  t.same(orders.json(), { for: 'joe', tags: ['ops'] })
  t.equal((await server.inject({ url: '/_server/users', headers: bearer(claims) })).statusCode, 403)
})

test('allowSuperadmin: true is the one way a token reaches the admin API', async (t) => {
  const server = build({ tagsClaim: 'tags', allowSuperadmin: true })
  t.teardown(() => server.close())
  t.equal((await server.inject({ url: '/_server/users', headers: bearer({ sub: 'ops-robot', tags: ['SUPERADMIN'] }) })).statusCode, 200)
})

test('admin API bodies: a tag outside the rule alphabet is a 400 naming it, and nothing changes', async (t) => {
  const server = build()
  t.teardown(() => server.close())
  const cookie = await adminCookie(server)
  const as = (method: 'POST' | 'PATCH', url: string, payload: object) => server.inject({ method, url, headers: { cookie }, payload })
  const cases: Array<[ReturnType<typeof as>, string]> = [
    [as('POST', '/_server/users', { identity: 'bob', password: 'night-shift-pw', tags: ['ops', 'night shift'] }), 'night shift'],
    [as('POST', '/_server/users', { identity: 'bob', password: 'night-shift-pw', tags: 'ops,a|b' }), 'a|b'],
    [as('PATCH', '/_server/users/admin', { tags: ['SUPERADMIN', '(x)'], password: 'changed-password' }), '(x)'],
    [as('POST', '/_server/tokens', { label: 'robot', tags: ['deploy\u00a0prod'] }), 'deploy\u00a0prod']
  ]
  for (const [pending, tag] of cases) {
    const res = await pending
    t.equal(res.statusCode, 400, tag)
    t.same(res.json(), { statusCode: 400, code: 'GATEHOUSE_SERVER_INVALID_TAG', error: 'Bad Request', message: `tags: tag ${JSON.stringify(tag)} is not allowed: tags use only letters, digits and _ . : -` }, tag)
  }
  t.same((await server.inject({ url: '/_server/users', headers: { cookie } })).json().users.map((u: { identity: string, tags: string[] }) => [u.identity, u.tags]), [['admin', ['SUPERADMIN']]], 'no user added, the admin unchanged')
  t.equal((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'gatekeeper-pass' } })).statusCode, 200, 'the refused PATCH did not change the password either')
  t.same((await server.inject({ url: '/_server/tokens', headers: { cookie } })).json().tokens, [], 'no key issued')
})

test('verifier and OIDC tag options are boot errors naming the option', async (t) => {
  const boot = async (verifier: Record<string, unknown>) => {
    const server = new AppServer({ logger: false, auth: { jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', ...verifier }] } })
    try {
      await server.ready()
    } finally {
      await server.close()
    }
  }
  await t.rejects(boot({ tags: 'SUPERADMIN' }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^jwt\.main\.tags: SUPERADMIN would be granted to every token/ })
  await t.rejects(boot({ tagsClaim: 'roles', allowedTags: 'ops, a b' }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'jwt.main.allowedTags: tag "a b" is not allowed: tags use only letters, digits and _ . : -' })
  t.throws(() => new OidcMethod('idp', { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's', tags: 'staff, all staff' }, { externalUrl: 'https://app.example' }),
    { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'serverApp.oidc.idp.tags: tag "all staff" is not allowed: tags use only letters, digits and _ . : -' })
})

interface Run { code: number, stdout: string, stderr: string }
async function cli (args: string[], stdin = '', cwd = process.cwd()): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const input = new PassThrough()
  input.end(stdin)
  const code = await runCli(args, {
    stdin: input,
    stdout: new PassThrough().on('data', (c: Buffer) => { stdout += c }),
    stderr: new PassThrough().on('data', (c: Buffer) => { stderr += c }),
    env: { ...process.env },
    cwd
  })
  return { code, stdout, stderr }
}

test('CLI --tags: one line naming the tag, exit 1, nothing written', async (t) => {
  const dir = t.testdir({})
  const user = await cli(['users', 'add', 'bob', '--tags', 'ops,night shift', '--store', dir], 'night-shift-pw\n')
  t.equal(user.code, 1)
  t.equal(user.stderr, 'gatehouse: --tags: tag "night shift" is not allowed: tags use only letters, digits and _ . : -\n')
  const key = await cli(['keys', 'issue', '--label', 'robot', '--tags', 'deploy|prod', '--store', dir])
  t.equal(key.code, 1)
  t.equal(key.stderr, 'gatehouse: --tags: tag "deploy|prod" is not allowed: tags use only letters, digits and _ . : -\n')
  t.equal(key.stdout, '', 'no key printed')
  // Nothing written: not even a store was started.
  for (const list of [['users', 'list'], ['keys', 'list']]) t.match(await cli([...list, '--json', '--store', dir]), { code: 1, stderr: /^gatehouse: no store at / })
  const good = await cli(['users', 'add', 'bob', '--tags', 'ops, eu:west-1.a_b', '--store', dir], 'night-shift-pw\n')
  t.equal(good.code, 0, good.stderr)
  t.equal(good.stderr, `gatehouse: created a new store at ${dir}\nAdded bob with tags ops,eu:west-1.a_b.\n`)
})

const FIXTURE = fileURLToPath(new URL('../fixtures/gatehouse.ts', import.meta.url))
const APP = fileURLToPath(new URL('../fixtures/shop-app.ts', import.meta.url))

test('config file: tags_claim, allowed_tags, allow_superadmin, require_exp and max_age reach the verifier through gatehouse serve', async (t) => {
  const jwt = `auth_middleware:\n  jwt:\n    - { name: main, secret: "${SECRET}", algorithm: HS256, tags_claim: roles, allowed_tags: [ops], allow_superadmin: false, require_exp: true, max_age: 600 }\n`
  const dir = t.testdir({ 'gatehouse.yaml': jwt, 'bad.yaml': jwt.replace('[ops]', '[ops, "night shift"]') })
  const bad = await cli(['serve', '--config', 'bad.yaml', '--port', '0'], '', dir)
  t.equal(bad.code, 1, 'a bad tag in the file is a boot error')
  t.equal(bad.stderr, 'gatehouse: jwt.main.allowedTags: tag "night shift" is not allowed: tags use only letters, digits and _ . : -\n')

  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, 'serve', '--config', join(dir, 'gatehouse.yaml'), '--app', APP, '--port', '0'], { cwd: dir })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const base = (await waitForOutput(child, output, /serving at (http:\/\/127\.0\.0\.1:\d+)\//, { what: 'the "serving at" line' }))[1]!
  const get = async (claims: object) => {
    const res = await fetch(`${base}/orders`, { headers: { authorization: `Bearer ${hs256(claims, SECRET)}` } })
    return { status: res.status, body: await res.json() as Record<string, unknown> }
  }
  const iat = nowS()
  const exp = iat + 60
  t.same(await get({ sub: 'joe', roles: ['ops', 'SUPERADMIN'], iat, exp }), { status: 200, body: { for: 'joe' } }, 'tags from roles')
  t.equal((await get({ sub: 'joe', tags: ['ops'], iat, exp })).status, 403, 'tags_claim: the tags claim is not read')
  t.equal((await get({ sub: 'joe', roles: ['ops'], exp })).body.message, 'The token has no iat claim', 'max_age')
  t.equal((await get({ sub: 'joe', roles: ['ops'], iat })).body.message, 'The token has no exp claim', 'require_exp')
  t.equal(await stopChild(child, 'SIGTERM'), 0)
})
