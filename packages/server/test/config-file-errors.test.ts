// What `gatehouse serve --config` says about a config file it cannot use:
// a YAML syntax error with its line, column and a caret (D-CONFIG-09), and a
// bad password_hash with its key path and how to make one (D-CONFIG-11).
// In this process, through runCli (what the bin runs).
import { test } from 'tap'
import { join } from 'node:path'
import { gatehouse } from './helpers/cli.js'

const SALT = 'AAAAAAAAAAAAAAAAAAAAAA'
const KEY = 'B'.repeat(43)

test('a YAML syntax error: exit 1, the line and column, the line with a caret, no secret', async (t) => {
  const dir = t.testdir({
    'indent.yaml': 'server:\n  port: 8000\n   host: 127.0.0.1\n',
    'secret.yaml': 'auth_middleware:\n  bearer:\n    ci: { token: @Deploy-Token-9x2 }\n'
  })
  const indent = await gatehouse(['serve', '--config', 'indent.yaml'], { cwd: dir, env: {}, cleanEnv: true })
  t.equal(indent.code, 1)
  t.equal(indent.stderr, `gatehouse: Cannot load config file ${join(dir, 'indent.yaml')}: Nested mappings are not allowed in compact mappings at line 2, column 9:
  2 |   port: 8000
    |         ^
`)
  const secret = await gatehouse(['serve', '--config', 'secret.yaml'], { cwd: dir, env: {}, cleanEnv: true })
  t.equal(secret.code, 1)
  t.equal(secret.stderr, `gatehouse: Cannot load config file ${join(dir, 'secret.yaml')}: Plain value cannot start with reserved character @ at line 3, column 18:
  3 |     ci: { token: [REDACTED]
    |                  ^
`)
  t.notOk(secret.stderr.includes('Deploy-Token'))
})

test('a YAML reason that would quote a secret (an unknown tag): stderr shows neither reason text nor value (D-CONFIG-13)', async (t) => {
  const dir = t.testdir({ 'tag.yaml': 'server:\n  port: 8000\nops: { password: !Pa55-word, tags: x }\n' })
  const run = await gatehouse(['serve', '--config', 'tag.yaml'], { cwd: dir, env: {}, cleanEnv: true })
  t.equal(run.code, 1)
  t.equal(run.stderr, `gatehouse: Cannot load config file ${join(dir, 'tag.yaml')}: Unresolved tag (a config file knows only !env and !file, on a value) at line 3, column 18:
  3 | ops: { password: [REDACTED]
    |                  ^
`)
  t.notOk(run.stderr.includes('Pa55'))
})

test('a password_hash that is not one: its key path as written and `gatehouse users hash`', async (t) => {
  const dir = t.testdir({
    'garbled.yaml': 'auth_middleware:\n  basic:\n    alice: { password_hash: "scrypt$32768,8,1$tooshort", tags: ops }\n',
    'plain.yaml': 'auth_middleware:\n  basic:\n    alice: { password_hash: hunter2-hunter2 }\n',
    'params.yaml': `auth_middleware:\n  basic:\n    alice: { password_hash: "scrypt$3,8,1$${SALT}$${KEY}" }\n`,
    'garbled.json': JSON.stringify({ auth_middleware: { basic: { 'alice smith': { password_hash: 'bcrypt$2b$10$x' } } } })
  })
  const cases: Array<[string, string]> = [
    ['garbled.yaml', `${join(dir, 'garbled.yaml')}: auth_middleware.basic.alice.password_hash: expected scrypt$N,r,p$salt$hash; make one with \`gatehouse users hash\``],
    ['plain.yaml', `${join(dir, 'plain.yaml')}: auth_middleware.basic.alice.password_hash: expected scrypt$N,r,p$salt$hash; make one with \`gatehouse users hash\``],
    ['garbled.json', `${join(dir, 'garbled.json')}: auth_middleware.basic["alice smith"].password_hash: expected scrypt$N,r,p$salt$hash; make one with \`gatehouse users hash\``],
    // The scrypt parameters are checked when auth starts, in the TypeScript spelling.
    ['params.yaml', 'basic.alice.passwordHash: Invalid password hash: N must be a power of two from 2 to 2^20; make one with `gatehouse users hash`']
  ]
  for (const [file, message] of cases) {
    const run = await gatehouse(['serve', '--config', file, '--port', '0'], { cwd: dir, env: {}, cleanEnv: true })
    t.equal(run.code, 1, file)
    t.equal(run.stderr, `gatehouse: ${message}\n`, file)
    t.notOk(run.stderr.includes('hunter2'), 'a password given for a hash is not shown')
  }
})
