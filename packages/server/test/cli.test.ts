import { test } from 'tap'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { runCli } from '@fastify-gatehouse/server'
import { gatehouse } from './helpers/cli.js'
import { waitUntil } from '../../../test-helpers/wait.js'

test('keys: issue prints the key once, list never shows it, revoke and delete', async (t) => {
  const dir = t.testdir({})
  const issued = await gatehouse(['keys', 'issue', '--label', 'ci-bot', '--tags', 'read,write', '--store', dir])
  t.equal(issued.code, 0, issued.stderr)
  const key = issued.stdout.trim()
  t.match(key, /^gak_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/, 'stdout is exactly the key')
  t.match(issued.stderr, /It is shown only this once/)
  const keyId = key.slice(4, 20)

  const listed = await gatehouse(['keys', 'list', '--store', dir])
  t.equal(listed.code, 0)
  t.match(listed.stdout, new RegExp(`^KEY ID\\s+LABEL\\s+TAGS\\s+STATUS\\s+EXPIRES\\s+LAST USED\\n${keyId}\\s+ci-bot\\s+read,write\\s+active\\s+never\\s+-\\n$`))
  const json = await gatehouse(['keys', 'list', '--json', '--store', dir])
  t.match(JSON.parse(json.stdout), [{ keyId, label: 'ci-bot', tags: ['read', 'write'], enabled: true }])
  for (const out of [listed.stdout, json.stdout, await readFile(join(dir, 'keys.json'), 'utf8')]) {
    t.notOk(out.includes(key.slice(21)), 'the secret appears nowhere after issue')
  }

  const store = await FileApiKeyStore.open(join(dir, 'keys.json'))
  t.teardown(() => store.close())
  t.not(store.verify(key), null)
  const revoked = await gatehouse(['keys', 'revoke', keyId, '--store', dir])
  t.equal(revoked.code, 0)
  t.match(revoked.stderr, `Revoked key ${keyId}.`)
  t.match((await gatehouse(['keys', 'list', '--store', dir])).stdout, /revoked/)
  t.equal((await gatehouse(['keys', 'delete', keyId, '--store', dir])).code, 0)
  t.same(JSON.parse((await gatehouse(['keys', 'list', '--json', '--store', dir])).stdout), [])
})

test('keys issue --expires', async (t) => {
  const dir = t.testdir({})
  const res = await gatehouse(['keys', 'issue', '--label', 'temp', '--expires', '30d', '--json', '--store', dir])
  t.equal(res.code, 0)
  const record = JSON.parse(res.stdout)
  t.match(record.key, /^gak_/)
  const days = (Date.parse(record.expiresAt) - Date.now()) / 86_400_000
  t.ok(days > 29.9 && days <= 30, `expires in ${days.toFixed(2)} days`)
  const iso = await gatehouse(['keys', 'issue', '--label', 'iso', '--expires', '2099-01-01T00:00:00Z', '--json', '--store', dir])
  t.equal(JSON.parse(iso.stdout).expiresAt, '2099-01-01T00:00:00.000Z')
})

test('bad input: clear messages and non-zero exits', async (t) => {
  // An empty store: the commands below fail on what is (not) in it.
  const dir = t.testdir({ bad: { 'keys.json': '{ nope' }, '.gatehouse': { 'users.json': '{"version":1,"users":[]}', 'keys.json': '{"version":1,"keys":[]}' } })
  const cases: Array<[string[], number, RegExp, string?]> = [
    [['keys', 'issue'], 2, /--label is required/],
    [['keys', 'issue', '--lable', 'x'], 2, /unknown option --lable: did you mean --label\?/],
    [['keys', 'issue', '--label', 'x', '--expires', 'soon'], 2, /--expires takes a time from now, a whole number and one of s, m, h, d, w \(30d/],
    [['keys', 'issue', '--label', 'x', '--expires', '2001-01-01'], 1, /expiresAt must be a date in the future/],
    [['keys', 'issue', '--label', ''], 1, /label must be 1–200 characters/],
    [['keys', 'revoke', 'abc'], 2, /a keyId is 16 hex characters/],
    [['keys', 'revoke', '0123456789abcdef'], 1, /no key 0123456789abcdef/],
    [['keys', 'frobnicate'], 2, /unknown keys command: argument 2 "frobnicate"/],
    [['keys'], 2, /which keys command\?/],
    [['users', 'add'], 2, /give exactly one identity/],
    [['users', 'add', 'alice', 'hunter2'], 2, /users add takes one identity, and never a password on the command line/, 'a password is never taken from argv'],
    [['users', 'add', 'alice'], 2, /the password is empty/],
    [['users', 'passwd', 'nobody'], 1, /no user nobody/],
    [['users', 'disable', 'nobody'], 1, /no user nobody/],
    [['users', 'add', 'a:b'], 1, /identity must be 1–200 characters without control characters or ":"/, 'needs stdin'],
    [['frobnicate'], 2, /unknown command: argument 1 "frobnicate"/],
    [['keys', 'list', '--store', join(dir, 'bad')], 1, new RegExp(`Store file ${join(dir, 'bad', 'keys.json')}: not valid JSON`)]
  ]
  for (const [args, code, message, note] of cases) {
    const res = await gatehouse(args, { cwd: dir, stdin: note === 'needs stdin' ? 'a long enough password\n' : '' })
    t.equal(res.code, code, `${args.join(' ')} → ${code}`)
    t.match(res.stderr, message, args.join(' '))
    t.notMatch(res.stderr, /\n\s+at /, 'no stack trace')
  }
  const none = await gatehouse([])
  t.equal(none.code, 2)
  t.match(none.stdout, /Usage:/)
  const help = await gatehouse(['users', '--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /gatehouse users add <identity>/)
})

test('any coded error is one line and exit 1, never a stack', async (t) => {
  // A component's own option check (GATEHOUSE_CORS_INVALID_OPTIONS) escaped
  // the handler's list of known codes: a stack, and no exit code.
  const dir = t.testdir({ 'cors.yaml': "middleware:\n  cors: { allow_origins: 'https://app.example/' }\n" })
  const res = await gatehouse(['serve', '--config', 'cors.yaml', '--port', '0'], { cwd: dir })
  t.equal(res.code, 1)
  t.match(res.stderr, /^gatehouse: .*allowOrigins: "https:\/\/app\.example\/" is not an origin/)
  t.equal(res.stderr.split('\n').length, 2, 'one line')
})

test('users: add from stdin, list without hashes, passwd, disable, enable, delete', async (t) => {
  const dir = t.testdir({})
  const env = { GATEHOUSE_STORE: dir }
  const added = await gatehouse(['users', 'add', 'alice', '--tags', 'admin'], { env, stdin: 'first-pw\nignored second line\n' })
  t.equal(added.code, 0, added.stderr)
  t.match(added.stderr, 'Added alice with tags admin.')
  // Checks the file on every lookup (the default, 250 ms, would lag the CLI's changes).
  const store = await FileUserStore.open(join(dir, 'users.json'), { watchInterval: 0 })
  t.match(await store.verify('alice', 'first-pw'), { identity: 'alice', tags: ['admin'] })
  const listed = await gatehouse(['users', 'list'], { env })
  t.match(listed.stdout, /^IDENTITY\s+TAGS\s+STATUS\s+UPDATED\nalice\s+admin\s+enabled\s+\d{4}-/)
  t.notMatch(listed.stdout + (await gatehouse(['users', 'list', '--json'], { env })).stdout, /scrypt|first-pw/)
  t.equal((await gatehouse(['users', 'add', 'alice'], { env, stdin: 'another-pw\n' })).code, 1, 'an existing identity')
  t.equal((await gatehouse(['users', 'passwd', 'alice'], { env, stdin: 'second-pw' })).code, 0)
  t.equal(await store.verify('alice', 'first-pw'), null)
  t.not(await store.verify('alice', 'second-pw'), null)
  t.equal((await gatehouse(['users', 'disable', 'alice'], { env })).code, 0)
  t.equal(await store.verify('alice', 'second-pw'), null, 'disabled users do not verify')
  t.match((await gatehouse(['users', 'list'], { env })).stdout, /alice\s+admin\s+disabled/)
  t.equal((await gatehouse(['users', 'enable', 'alice'], { env })).code, 0)
  t.not(await store.verify('alice', 'second-pw'), null)
  t.equal((await gatehouse(['users', 'delete', 'alice'], { env })).code, 0)
  t.same(await store.list(), [])
})

test('the default store is ./.gatehouse under the working directory', async (t) => {
  const dir = t.testdir({})
  t.equal((await gatehouse(['keys', 'issue', '--label', 'x'], { cwd: dir })).code, 0)
  t.ok(existsSync(join(dir, '.gatehouse', 'keys.json')))
})

test('the password prompt on a terminal: asked twice, not echoed', async (t) => {
  const dir = t.testdir({})
  const stdin = Object.assign(new PassThrough(), { isTTY: true })
  let out = ''
  let err = ''
  const io = {
    stdin,
    stdout: new PassThrough().on('data', (c: Buffer) => { out += c }),
    stderr: new PassThrough().on('data', (c: Buffer) => { err += c }),
    env: {},
    cwd: dir
  }
  // Each line is typed once its prompt is on the screen, as a person would.
  const typeAt = async (input: PassThrough, prompt: RegExp, line: string) => {
    await waitUntil(() => prompt.test(err), { what: `the prompt ${prompt}` })
    input.write(line)
  }
  const running = runCli(['users', 'add', 'tty-user'], io)
  await typeAt(stdin, /Password: $/, 'typed-secret\r')
  await typeAt(stdin, /Again: $/, 'typed-secret\r')
  t.equal(await running, 0, err)
  t.notOk((out + err).includes('typed-secret'), 'the password is not echoed')
  t.match(err, /Password: [\s\S]*Again: /)
  const store = await FileUserStore.open(join(dir, '.gatehouse', 'users.json'))
  t.not(await store.verify('tty-user', 'typed-secret'), null)

  const mismatch = Object.assign(new PassThrough(), { isTTY: true })
  err = ''
  const second = runCli(['users', 'add', 'other'], { ...io, stdin: mismatch })
  await typeAt(mismatch, /Password: $/, 'one\r')
  await typeAt(mismatch, /Again: $/, 'two\r')
  t.equal(await second, 2)
  t.match(err, /the passwords do not match/)
})
