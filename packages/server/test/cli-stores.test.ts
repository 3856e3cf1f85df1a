// Issue 14: `--store /typo/dir` silently read as an empty store (exit 0).
// A command that reads or changes what a store holds refuses a folder with
// no store; one that adds to it starts the store and says so.
import { test } from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { gatehouse } from './helpers/cli.js'

const KEY_ID = '0123456789abcdef'
const READERS = [
  ['users', 'list'], ['users', 'list', '--json'], ['users', 'passwd', 'alice'], ['users', 'disable', 'alice'],
  ['users', 'enable', 'alice'], ['users', 'delete', 'alice'],
  ['keys', 'list'], ['keys', 'list', '--json'], ['keys', 'revoke', KEY_ID], ['keys', 'delete', KEY_ID]
]

test('reading commands refuse a folder without a store: one coded line, exit 1, nothing created', async (t) => {
  const dir = t.testdir({ 'not-a-store': { 'notes.txt': 'hello' } })
  for (const where of [join(dir, 'typo', 'dir'), join(dir, 'not-a-store')]) {
    for (const args of READERS) {
      const res = await gatehouse([...args, '--store', where], { cwd: dir, stdin: 'a-password\n' })
      const name = `${args.join(' ')} --store ${where.slice(dir.length)}`
      t.equal(res.code, 1, name)
      t.equal(res.stdout, '', `${name}: nothing on stdout (an empty table would look like an empty store)`)
      t.equal(res.stderr, `gatehouse: no store at ${where} (neither users.json nor keys.json is there); check --store or $GATEHOUSE_STORE (\`users add\` and \`keys issue\` create a store)\n`, name)
    }
  }
  t.notOk(existsSync(join(dir, 'typo')), 'a reading command creates nothing')
  const fromEnv = await gatehouse(['users', 'list'], { cwd: dir, env: { GATEHOUSE_STORE: 'typo' } })
  t.equal(fromEnv.code, 1)
  t.match(fromEnv.stderr, `no store at ${join(dir, 'typo')} `, '$GATEHOUSE_STORE, relative to the working directory')
  const byDefault = await gatehouse(['keys', 'list'], { cwd: dir, env: { GATEHOUSE_STORE: '' } })
  t.equal(byDefault.code, 1, 'and the default ./.gatehouse')
})

test('wrong usage is still reported first, with exit 2', async (t) => {
  const dir = t.testdir({})
  for (const args of [['keys', 'revoke', 'abc'], ['users', 'passwd'], ['users', 'frobnicate'], ['keys', 'issue']]) {
    const res = await gatehouse([...args, '--store', join(dir, 'typo')])
    t.equal(res.code, 2, args.join(' '))
    t.notMatch(res.stderr, /no store at/)
  }
})

test('adding commands start a store and say so once; later commands read it', async (t) => {
  const dir = t.testdir({})
  const users = join(dir, 'new', 'users-store')
  const added = await gatehouse(['users', 'add', 'alice', '--store', users], { stdin: 'wonderland-pw\n' })
  t.equal(added.code, 0, added.stderr)
  t.equal(added.stderr, `gatehouse: created a new store at ${users}\nAdded alice.\n`)
  t.ok(existsSync(join(users, 'users.json')))
  const again = await gatehouse(['users', 'add', 'bob', '--store', users], { stdin: 'night-shift-pw\n' })
  t.equal(again.stderr, 'Added bob.\n', 'said once')
  const listed = await gatehouse(['users', 'list', '--store', users])
  t.equal(listed.code, 0)
  t.match(listed.stdout, /alice[\s\S]*bob/)
  const keysHere = await gatehouse(['keys', 'list', '--store', users])
  t.equal(keysHere.code, 0, 'a store holding users.json only is a store: its key list is empty')
  t.equal(keysHere.stdout, 'KEY ID  LABEL  TAGS  STATUS  EXPIRES  LAST USED\n')

  const keys = join(dir, 'keys-store')
  const issued = await gatehouse(['keys', 'issue', '--label', 'ci', '--store', keys])
  t.equal(issued.code, 0, issued.stderr)
  t.match(issued.stdout, /^gak_[0-9a-f]{16}_\S{43}\n$/, 'stdout is still exactly the key')
  t.match(issued.stderr, new RegExp(`^gatehouse: created a new store at ${keys.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\nIssued key `))
  t.notMatch((await gatehouse(['keys', 'issue', '--label', 'ci2', '--store', keys])).stderr, /created/)
  t.equal((await gatehouse(['users', 'list', '--store', keys])).code, 0, 'and one holding keys.json only')

  const failed = await gatehouse(['users', 'add', 'a:b', '--store', join(dir, 'never')], { stdin: 'long-enough-pw\n' })
  t.equal(failed.code, 1)
  t.notMatch(failed.stderr, /created/, 'a failed add announces no store')
})
