// Issue 14: a way to produce `password_hash` values for config files and
// users.json: `gatehouse users hash`, the password from a prompt or stdin,
// the policy of `users add`, only the hash on stdout.
import { test } from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { AuthCore, parsePasswordHash, verifyPassword } from '@fastify-gatehouse/auth'
import { runCli } from '@fastify-gatehouse/server'
import { gatehouse } from './helpers/cli.js'

const HASH = /^scrypt\$32768,8,1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/

test('users hash: the first line of stdin, only the hash on stdout, usable as a Basic password_hash', async (t) => {
  const dir = t.testdir({})
  const res = await gatehouse(['users', 'hash'], { cwd: dir, stdin: 'a config password\nignored second line\n' })
  t.equal(res.code, 0, res.stderr)
  t.equal(res.stderr, '')
  t.match(res.stdout, /\n$/)
  const hash = res.stdout.trimEnd()
  t.match(hash, HASH, 'one line: scrypt with the stores\' default parameters')
  t.ok(await verifyPassword('a config password', parsePasswordHash(hash)))
  t.notOk(await verifyPassword('ignored second line', parsePasswordHash(hash)))
  t.notOk(existsSync(join(dir, '.gatehouse')), 'no store is opened or created')
  const other = await gatehouse(['users', 'hash'], { cwd: dir, stdin: 'a config password\n' })
  t.not(other.stdout, res.stdout, 'a fresh salt each time')

  const core = await AuthCore.create({ basic: { ci: { passwordHash: hash, tags: 'ci' } } })
  const avatar = await core.authenticate(`Basic ${Buffer.from('ci:a config password').toString('base64')}`)
  t.equal(avatar.identity, 'ci', 'the value works as auth_middleware.basic.<user>.password_hash')
})

test('users hash: the policy and the refusals of users add', async (t) => {
  const empty = await gatehouse(['users', 'hash'], { stdin: '' })
  t.equal(empty.code, 2)
  t.match(empty.stderr, /the password is empty/)
  t.equal(empty.stdout, '')
  const long = await gatehouse(['users', 'hash'], { stdin: 'x'.repeat(257) + '\n' })
  t.equal(long.code, 1)
  t.equal(long.stderr, 'gatehouse: The password must be at most 256 characters long. (rule: max-length)\n', 'the password policy, as one coded line')
  t.equal(long.stdout, '')
  const short = await gatehouse(['users', 'hash'], { stdin: 'hunter2\n' })
  t.equal(short.code, 1)
  t.equal(short.stderr, 'gatehouse: The password must be at least 8 characters long. (rule: min-length)\n')
  t.equal(short.stdout, '')
  const common = await gatehouse(['users', 'hash'], { stdin: 'Password123\n' })
  t.equal(common.code, 1)
  t.equal(common.stderr, 'gatehouse: The password is one of the most common passwords; choose another. (rule: common)\n')
  t.equal(common.stdout, '', 'no hash of a refused password')
  const argv = await gatehouse(['users', 'hash', 'hunter2'])
  t.equal(argv.code, 2, 'never a password on the command line')
  t.match(argv.stderr, /users hash takes no argument/)
  t.equal((await gatehouse(['users', 'hash', '--store', '/tmp'], { stdin: 'pw\n' })).code, 2)
  t.equal((await gatehouse(['users', 'hash', '--tags', 'x'], { stdin: 'pw\n' })).code, 2)
})

test('users hash on a terminal: asked twice, not echoed; a mismatch prints nothing', async (t) => {
  let out = ''
  let err = ''
  const io = (stdin: PassThrough) => ({
    stdin: Object.assign(stdin, { isTTY: true }),
    stdout: new PassThrough().on('data', (c: Buffer) => { out += c }),
    stderr: new PassThrough().on('data', (c: Buffer) => { err += c }),
    env: {},
    cwd: t.testdir({})
  })
  const stdin = new PassThrough()
  const running = runCli(['users', 'hash'], io(stdin))
  stdin.write('typed-secret\r')
  stdin.write('typed-secret\r')
  t.equal(await running, 0, err)
  t.match(out.trimEnd(), HASH)
  t.notOk((out + err).includes('typed-secret'), 'the password is not echoed')
  t.match(err, /Password: [\s\S]*Again: /)

  out = ''
  const mismatch = new PassThrough()
  const second = runCli(['users', 'hash'], io(mismatch))
  mismatch.write('one\r')
  mismatch.write('two\r')
  t.equal(await second, 2)
  t.match(err, /the passwords do not match/)
  t.equal(out, '')
})

test('users hash through the command line entry, with a pipe', async (t) => {
  const res = await gatehouse(['users', 'hash'], { stdin: 'piped password\n', process: true })
  t.equal(res.code, 0, res.stderr)
  t.match(res.stdout, /^scrypt\$\S+\n$/)
  t.ok(await verifyPassword('piped password', parsePasswordHash(res.stdout.trimEnd())))
})
