// Issue 25, review of items 2 and 3: `gatehouse users add|passwd` printed an
// uncoded error of the user store as a bug, with its message and stack: a
// store's error quoting the password put it on the terminal (and in any CI
// log of it). Now one line of safe facts, exit 1. D-SERVER-57.
import { test } from 'tap'
import { FileUserStore } from '@fastify-gatehouse/files'
import { gatehouse } from './helpers/cli.js'

const PASSWORD = 'Qx"7 wörd/+&=%-cli-91'
const forms = [PASSWORD, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD), Buffer.from(PASSWORD).toString('base64')]

test('a user store error quoting the password: users add and passwd print the call, class and code, never the password', async (t) => {
  const dir = t.testdir({})
  t.equal((await gatehouse(['users', 'add', 'bob', '--store', dir], { stdin: 'lilac-kestrel-2931\n', cwd: dir })).code, 0, 'bob is added')
  const add = FileUserStore.prototype.add
  const setPassword = FileUserStore.prototype.setPassword
  const leak = (password: string): Error => Object.assign(new Error(`write failed: ${JSON.stringify({ password })} ${encodeURIComponent(password)} ${Buffer.from(password).toString('base64')}`), { code: 'ECONNRESET' })
  FileUserStore.prototype.add = async function (_identity, record) { throw leak(record.password ?? '') }
  FileUserStore.prototype.setPassword = async function (_identity, password) { throw leak(password) }
  t.teardown(() => {
    FileUserStore.prototype.add = add
    FileUserStore.prototype.setPassword = setPassword
  })
  const added = await gatehouse(['users', 'add', 'carol', '--store', dir], { stdin: `${PASSWORD}\n`, cwd: dir })
  t.equal(added.code, 1, 'add: exit 1, not a bug')
  t.equal(added.stderr, 'gatehouse: UserStore.add threw Error ECONNRESET\n')
  const changed = await gatehouse(['users', 'passwd', 'bob', '--store', dir], { stdin: `${PASSWORD}\n`, cwd: dir })
  t.equal(changed.code, 1, 'passwd: exit 1')
  t.equal(changed.stderr, 'gatehouse: UserStore.setPassword threw Error ECONNRESET\n')
  for (const value of forms) {
    t.notOk(added.stdout.includes(value) || added.stderr.includes(value), 'add never prints the password')
    t.notOk(changed.stdout.includes(value) || changed.stderr.includes(value), 'passwd never prints the password')
  }
})
