// OWASP ASVS 5.0, V6.2 Password Security: one test per requirement that
// Gatehouse's password surfaces (the admin API, the login page, the stores)
// answer for. 6.2.2 and 6.2.3 (changing one's own password) are tested with
// the account endpoints; 6.2.12 (breached passwords) is not claimed.
import { test, type Test } from 'tap'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hashPassword, MemoryUserStore, resolvePasswordPolicy, type PasswordPolicy, type UserStore } from '@fastify-gatehouse/auth'
import { FileUserStore } from '@fastify-gatehouse/files'
import { AppServer } from '@fastify-gatehouse/server'
import { writeStoreFile } from '../../../../test-helpers/store-files.js'

const FAST = { N: 1024, r: 8, p: 1 }
const ADMIN = 'gatekeeper-pass'
const WEAK = 'GATEHOUSE_SERVER_WEAK_PASSWORD'
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

// A server with the admin signed in: `add` creates a user through the admin
// API, `login` signs in with JSON. Lockout is raised so the tests that try
// many wrong variants are not locked out.
async function setup (t: Test, passwordPolicy?: PasswordPolicy, users: UserStore = new MemoryUserStore({ scrypt: FAST })) {
  const server = new AppServer({
    logger: false, users, adminPassword: ADMIN, login: true, serverApp: { login: { maxAttempts: 1000 } }, ...(passwordPolicy === undefined ? {} : { passwordPolicy })
  })
  t.teardown(() => server.close())
  const admin = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: ADMIN } })
  const cookie = String(admin.headers['set-cookie']).split(';')[0]!
  const add = (identity: string, password: string) =>
    server.inject({ method: 'POST', url: '/_server/users', headers: { cookie }, payload: { identity, password } })
  const login = (identity: string, password: string) =>
    server.inject({ method: 'POST', url: '/_server/login', payload: { identity, password } })
  return { server, add, login }
}

test('ASVS 5.0 V6.2.1: user-set passwords are at least 8 characters long (15 recommended, configurable)', async (t) => {
  const { add } = await setup(t)
  const seven = await add('u1', 'seven-c')
  t.equal(seven.statusCode, 400)
  t.same(seven.json(), { statusCode: 400, code: WEAK, error: 'Bad Request', message: 'The password must be at least 8 characters long. (rule: min-length)' })
  t.equal((await add('u1', 'eight-ch')).statusCode, 201)

  const recommended = await setup(t, { minLength: 15 })
  t.same((await recommended.add('u2', 'fourteen-chars')).json().message, 'The password must be at least 15 characters long. (rule: min-length)')
  t.equal((await recommended.add('u2', 'fifteen-chars-x')).statusCode, 201)
  t.throws(() => resolvePasswordPolicy({ minLength: 7 }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^passwordPolicy\.minLength: must be a whole number from 8 to 64/ }, 'the floor cannot be lowered')
})

test('ASVS 5.0 V6.2.4: new passwords are checked against the top common passwords that fit the policy', async (t) => {
  const list = (await readFile(join(ROOT, 'packages', 'auth', 'data', 'common-passwords.txt'), 'utf8')).split('\n').filter((line) => line !== '')
  t.ok(list.length >= 3000, `${list.length} common passwords of 8 or more characters (at least 3000 required)`)
  t.ok(list.every((entry) => [...entry].length >= 8), 'each one fits the minimum length')
  const { add } = await setup(t)
  for (const password of ['password', 'baseball', 'iloveyou', 'trustno1', 'Password1', 'QWERTYUIOP', list[2999]!]) {
    const res = await add('u3', password)
    t.equal(res.statusCode, 400, password)
    t.same(res.json(), { statusCode: 400, code: WEAK, error: 'Bad Request', message: 'The password is one of the most common passwords; choose another. (rule: common)' })
  }
  t.equal((await add('u3', 'not on the list, surely')).statusCode, 201)
})

test('ASVS 5.0 V6.2.5: passwords of any composition are allowed, with no character-class rules', async (t) => {
  const { add, login } = await setup(t)
  const passwords = ['only lower case letters', 'ONLY UPPER CASE LETTERS', '80317264951', '!@#$%^&*()_+{}', '          spaces          ', 'пароль без цифр', '密码密码密码密码', '🔑🗝️🔐🛡️🚪🧷', 'Ünïcødé ∑ ≠ ½']
  for (const [i, password] of passwords.entries()) {
    const added = await add(`c${i}`, password)
    t.equal(added.statusCode, 201, JSON.stringify(password))
    t.equal((await login(`c${i}`, password)).statusCode, 200, 'and signs in')
  }
})

test('ASVS 5.0 V6.2.6: password fields use type=password', async (t) => {
  const { server } = await setup(t)
  const page = await server.inject({ url: '/_server/login_page', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  const inputs = [...page.body.matchAll(/<input\b[^>]*>/g)].map((m) => m[0])
  const passwordInputs = inputs.filter((input) => /\bname="password"/.test(input))
  t.equal(passwordInputs.length, 1, 'one password field')
  t.match(passwordInputs[0], /\btype="password"/)
  t.ok(inputs.filter((input) => /\btype="password"/.test(input)).length === passwordInputs.length, 'every masked field is the password')
})

test('ASVS 5.0 V6.2.7: paste, browser password helpers and password managers are allowed', async (t) => {
  const { server } = await setup(t)
  const page = (await server.inject({ url: '/_server/login_page', headers: { accept: 'text/html' } })).body
  t.match(page, /<input id="identity" name="identity" autocomplete="username"/, 'the identity is marked as the user name')
  t.match(page, /<input id="password" name="password" type="password" autocomplete="current-password"/, 'the password as the current password')
  t.notMatch(page, /autocomplete="off"/i, 'autofill is never turned off')
  t.notMatch(page, /\bon(paste|copy|cut|drop|contextmenu|keydown|input)\s*=/i, 'no inline handler that could block paste')
  t.notMatch(page, /readonly|maxlength/i, 'no field that refuses input or truncates a pasted password')
  const script = await server.inject({ url: '/_server/login.js' })
  t.equal(script.statusCode, 200)
  t.notMatch(script.body, /paste|clipboard|copy|cut|drop|keydown|keypress/i, 'the page\'s script does not touch paste or keystrokes')
})

test('ASVS 5.0 V6.2.8: the password is verified exactly as received: no truncation, no case change, no trimming', async (t) => {
  const { add, login, server } = await setup(t)
  const password = '  Correct Horse, Battery Staple  '
  t.equal((await add('exact', password)).statusCode, 201)
  t.equal((await login('exact', password)).statusCode, 200)
  const variants = [password.trim(), password.trimStart(), password.trimEnd(), password.toLowerCase(), password.toUpperCase(), password.slice(0, 8), password.slice(0, -1), password.replace(/ {2}/g, ' ')]
  for (const variant of variants) {
    const res = await login('exact', variant)
    t.equal(res.statusCode, 401, JSON.stringify(variant))
    t.equal(res.json().code, 'GATEHOUSE_SERVER_INVALID_LOGIN')
  }
  const form = await server.inject({
    method: 'POST', url: '/_server/login', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, payload: `identity=exact&password=${encodeURIComponent(password)}&next=%2F`
  })
  t.equal(form.statusCode, 303, 'the form sign-in gets the same bytes')
  t.equal(form.headers.location, '/')
  const long = 'z'.repeat(100) + 'end'
  t.equal((await add('long', long)).statusCode, 201)
  t.equal((await login('long', long)).statusCode, 200)
  t.equal((await login('long', long.slice(0, 100))).statusCode, 401, 'a prefix is not the password')
})

test('ASVS 5.0 V6.2.9: passwords of at least 64 characters are permitted', async (t) => {
  const { add, login } = await setup(t)
  for (const length of [64, 128, 256]) {
    const password = `${length}:`.padEnd(length, 'long passphrase ')
    t.equal([...password].length, length)
    t.equal((await add(`p${length}`, password)).statusCode, 201, `${length} characters`)
    t.equal((await login(`p${length}`, password)).statusCode, 200)
  }
  t.throws(() => resolvePasswordPolicy({ maxLength: 63 }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^passwordPolicy\.maxLength: must be a whole number from 64 to 512/ }, 'the maximum cannot go under 64')
  const wide = await setup(t, { maxLength: 512 })
  const emoji = '🔑'.repeat(512)
  t.equal((await wide.add('wide', emoji)).statusCode, 201, '512 characters (1024 UTF-16 units) with maxLength: 512')
  t.equal((await wide.login('wide', emoji)).statusCode, 200, 'and the login endpoint takes it')
})

test('ASVS 5.0 V6.2.10: a password stays valid until changed: nothing expires it', async (t) => {
  const dir = t.testdir({})
  const file = join(dir, 'users.json')
  const longAgo = '2006-03-01T00:00:00.000Z'
  writeStoreFile(file, 'users', [{ identity: 'veteran', tags: ['ops'], enabled: true, createdAt: longAgo, updatedAt: longAgo, passwordHash: await hashPassword('set twenty years ago', FAST) }])
  const users = await FileUserStore.open(file)
  const { login } = await setup(t, undefined, users)
  const res = await login('veteran', 'set twenty years ago')
  t.equal(res.statusCode, 200)
  t.match(res.json(), { identity: 'veteran', tags: ['ops'] })
  t.throws(() => resolvePasswordPolicy({ maxAge: 90 } as PasswordPolicy), { message: 'passwordPolicy.maxAge: unknown option (known: minLength, maxLength)' }, 'there is no rotation option to turn on')
})

test('ASVS 5.0 V6.2.11: the documented context-specific words (the identity, an e-mail\'s local part) are refused', async (t) => {
  const docs = await readFile(join(ROOT, 'docs', 'server.md'), 'utf8')
  const section = docs.slice(docs.indexOf('## Password policy'))
  t.ok(docs.includes('## Password policy'), 'docs/server.md has the section')
  t.match(section, /context-specific words/i)
  t.match(section, /the identity itself/)
  t.match(section, /before the `@`/)
  t.match(section, /3 characters or more/)

  const { add } = await setup(t)
  const refused = { statusCode: 400, code: WEAK, error: 'Bad Request', message: 'The password must not contain the identity. (rule: contains-identity)' }
  for (const [identity, password] of [['kim.lee@example.com', 'my kim.lee@example.com pass'], ['kim.lee@example.com', 'KIM.LEE-2026-pass'], ['maximilian', 'i-am-Maximilian!']]) {
    t.same((await add(identity!, password!)).json(), refused, `${identity}: ${password}`)
  }
  t.equal((await add('kim.lee@example.com', 'example.com is my employer')).statusCode, 201, 'the domain is not a word of the identity')
  t.equal((await add('al', 'al-al-al-al-al')).statusCode, 201, 'a word under 3 characters is not looked for')
  const admin = new AppServer({ logger: false, adminPassword: 'sysadmin-2026-pass' })
  await t.rejects(admin.ready(), { message: 'adminPassword: The password must not contain the identity. (rule: contains-identity)' }, 'the bootstrapped admin too')
  await admin.close()
})
