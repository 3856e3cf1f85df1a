// A stray word on the command line may be what was meant for a flag or a
// variable: `gatehouse migrate up postgres://u:secret@h/db`. Errors name
// such a word by its place, never show it; a plain word (a typo) is still
// quoted so the mistake can be seen. D-CLI-14.
import { test } from 'tap'
import { gatehouse } from './helpers/cli.js'

const SECRET = 'hunter2-Secret'
const URL_ = `postgres://gatehouse:${SECRET}@db.internal:5432/app`
const KEY = `gak_0123456789abcdef_${'Zq9'.repeat(14)}x`

test('a URL with a password as a stray argument: named by its place in every command, never shown', async (t) => {
  const dir = t.testdir({})
  const cases: Array<[string[], number, string]> = [
    [['migrate', 'up', URL_], 2, 'unexpected argument 3 (a URL, not shown)'],
    [['migrate', 'status', '--json', URL_], 2, 'unexpected argument 4 (a URL, not shown)'],
    [['migrate', URL_], 2, 'unknown migrate command: argument 2 (a URL, not shown)'],
    [['serve', URL_], 2, 'unexpected argument 2 (a URL, not shown)'],
    [['serve', '--port', '0', `gatehouse:${SECRET}@db.internal`], 2, 'unexpected argument 4 (it holds "@", not shown)'],
    [['import', '--from', dir, URL_], 2, 'unexpected argument 4 (a URL, not shown)'],
    [['keys', 'issue', '--label', 'ci', URL_], 2, 'unexpected argument 5 (a URL, not shown)'],
    [['keys', 'list', URL_], 2, 'unexpected argument 3 (a URL, not shown)'],
    [['keys', URL_], 2, 'unknown keys command: argument 2 (a URL, not shown)'],
    [['keys', 'revoke', URL_], 2, 'a keyId is 16 hex characters (the part after gak_), not argument 3 (a URL, not shown)'],
    [['users', 'list', URL_], 2, 'unexpected argument 3 (a URL, not shown)'],
    [['users', URL_], 2, 'unknown users command: argument 2 (a URL, not shown)'],
    [[URL_], 2, 'unknown command: argument 1 (a URL, not shown)'],
    [['migrate', 'up', `--${URL_}`], 2, 'unknown option: argument 3 (a URL, not shown)'],
    [['keys', 'issue', '--label', 'ci', '--expires', URL_], 2, '--expires takes a time from now, a whole number and one of s, m, h, d, w (30d, 12h, 90m, 3600s, 2w), or an ISO date (2027-01-31, 2027-01-31T12:00:00Z), not (a URL, not shown)']
  ]
  for (const [args, code, message] of cases) {
    const run = await gatehouse(args, { cleanEnv: true, env: {}, cwd: dir })
    const what = args.join(' ').replace(URL_, '<url>')
    t.equal(run.code, code, what)
    t.equal(run.stderr.split('\n')[0], `gatehouse: ${message}`, what)
    t.notOk((run.stdout + run.stderr).includes(SECRET), `${what}: the password appears nowhere`)
  }
  // An identity cannot hold a colon: refused before any store or prompt, unechoed.
  for (const action of ['add', 'passwd', 'enable', 'disable', 'delete']) {
    const run = await gatehouse(['users', action, URL_], { cleanEnv: true, env: {}, cwd: dir, stdin: 'password-1\n' })
    t.equal(run.code, 1, `users ${action} <url>`)
    t.equal(run.stderr, 'gatehouse: identity must be 1–200 characters without control characters or ":"\n')
    t.equal(run.stdout, '')
  }
})

test('an API key, a hash or a token-like word is not shown either; a plain word or a path is', async (t) => {
  const dir = t.testdir({})
  const cases: Array<[string[], string]> = [
    [['keys', 'revoke', KEY], 'a keyId is 16 hex characters (the part after gak_), not argument 3 (an API key, not shown)'],
    [['serve', KEY], 'unexpected argument 2 (an API key, not shown)'],
    [['serve', 'sha256$_AqLoBTQrypEcid2j5ANMe_BIuZ7RIYhi_1Hju08pfI'], 'unexpected argument 2 (a hash, not shown)'],
    [['migrate', 'up', 'Xy7pQ2rT9vK4mN8w'], 'unexpected argument 3 (it may be a secret, not shown)'],
    [['migrate', 'up', 'correct horse battery'], 'unexpected argument 3 (it may be a secret, not shown)'],
    [['migrate', 'up', 'staus'], 'unexpected argument 3 "staus"'],
    [['serve', 'gatehouse.yaml'], 'unexpected argument 2 "gatehouse.yaml"'],
    [['keys', 'revoke', 'abc'], 'a keyId is 16 hex characters (the part after gak_), not argument 3 "abc"'],
    [['keys', 'issue', '--lable', 'x'], 'unknown option --lable: did you mean --label?']
  ]
  for (const [args, message] of cases) {
    const run = await gatehouse(args, { cleanEnv: true, env: {}, cwd: dir })
    t.equal(run.code, 2, args.join(' '))
    t.equal(run.stderr.split('\n')[0], `gatehouse: ${message}`)
    t.notOk(run.stderr.includes(KEY.slice(21)), 'never a key\'s secret')
  }
})

test('through the built bin: the password is on neither stream of the process', async (t) => {
  const run = await gatehouse(['migrate', 'up', URL_], { bin: true, cleanEnv: true, env: {}, cwd: t.testdir({}) })
  t.equal(run.code, 2)
  t.match(run.stderr, /^gatehouse: unexpected argument 3 \(a URL, not shown\)\n\nUsage:/)
  t.notOk((run.stdout + run.stderr).includes(SECRET))
})
