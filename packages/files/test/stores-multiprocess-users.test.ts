import { test } from 'tap'
import { join } from 'node:path'
import { FileUserStore } from '@fastify-gatehouse/files'
import { together } from './helpers/writers.js'

test('four processes adding users into one file at once lose nothing', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const results = await together('users', path, 8, ['u0', 'u1', 'u2', 'u3'])
  t.ok(Math.max(...results.map((r) => r.start)) < Math.min(...results.map((r) => r.end)), 'the four writers were writing at the same time')
  const store = await FileUserStore.open(path, { scrypt: { N: 1024, r: 8, p: 1 } })
  const users = await store.list()
  t.equal(users.length, 32)
  t.not(await store.verify('u2-7', 'pw-u2-7'), null)
})
