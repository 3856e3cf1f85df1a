// Issue 15, item 0: a file store at one of its limits refuses the change
// before writing anything. The admin API answers 507 with the code; the CLI
// prints one line and exits 1 (D-AUTH-25).
import { test } from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { AppServer } from '@fastify-gatehouse/server'
import { gatehouse } from './helpers/cli.js'
import { writeStoreFile } from '../../../test-helpers/store-files.js'

const FAST = { N: 1024, r: 8, p: 1 }

test('the admin API answers a full store with 507 and GATEHOUSE_AUTH_STORE_FULL; the files are unchanged', async (t) => {
  const dir = t.testdir({})
  // Room for the bootstrapped admin and one user, and for two keys.
  const users = await FileUserStore.open(join(dir, 'users.json'), { scrypt: FAST, maxRecords: 2 })
  const tokens = await FileApiKeyStore.open(join(dir, 'keys.json'), { maxRecords: 2 })
  const server = new AppServer({ logger: false, users, tokens, adminPassword: 'gatekeeper-pass' })
  t.teardown(async () => { await server.close(); await tokens.close() })
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'gatekeeper-pass' } })
  const cookie = String(login.headers['set-cookie']).split(';')[0]!
  const post = (url: string, payload: object) => server.inject({ method: 'POST', url, headers: { cookie }, payload })

  t.equal((await post('/_server/users', { identity: 'alice', password: 'first-user-pw' })).statusCode, 201)
  const usersFile = readFileSync(join(dir, 'users.json'))
  const refused = await post('/_server/users', { identity: 'bob', password: 'second-user-pw' })
  t.equal(refused.statusCode, 507)
  t.same(refused.json(), {
    statusCode: 507,
    code: 'GATEHOUSE_AUTH_STORE_FULL',
    error: 'Insufficient Storage',
    message: 'The user store is full: it holds 2 users, its maxRecords; delete some or raise the limit'
  })
  t.same(readFileSync(join(dir, 'users.json')), usersFile, 'users.json unchanged')

  for (let i = 0; i < 2; i++) t.equal((await post('/_server/tokens', { label: `bot-${i}` })).statusCode, 201)
  const keysFile = readFileSync(join(dir, 'keys.json'))
  const full = await post('/_server/tokens', { label: 'one-too-many' })
  t.equal(full.statusCode, 507)
  t.match(full.json(), { code: 'GATEHOUSE_AUTH_STORE_FULL', message: 'The key store is full: it holds 2 keys, its maxRecords; delete some or raise the limit' })
  t.same(readFileSync(join(dir, 'keys.json')), keysFile, 'keys.json unchanged')

  // Changes and deletes still work, and make room.
  t.equal((await server.inject({ method: 'DELETE', url: '/_server/users/alice', headers: { cookie } })).statusCode, 200)
  t.equal((await post('/_server/users', { identity: 'bob', password: 'second-user-pw' })).statusCode, 201)
})

test('the CLI prints a full store as one line and exits 1', async (t) => {
  const dir = t.testdir({})
  // The CLI's stores have the default limits: 250 000 records.
  const count = 250_000
  writeStoreFile(join(dir, 'users.json'), 'users', (function * () {
    for (let i = 0; i < count; i++) yield { identity: `u${i}`, tags: [], enabled: true, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', passwordHash: 'scrypt$16,1,1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }
  })())
  const before = readFileSync(join(dir, 'users.json'))
  const res = await gatehouse(['users', 'add', 'one-more', '--store', dir], { stdin: 'a-password\n' })
  t.equal(res.code, 1)
  t.equal(res.stderr, `gatehouse: The user store is full: it holds ${count} users, its maxRecords; delete some or raise the limit\n`)
  t.equal(res.stdout, '')
  t.ok(readFileSync(join(dir, 'users.json')).equals(before), 'users.json unchanged')
  const deleted = await gatehouse(['users', 'delete', 'u7', '--store', dir])
  t.equal(deleted.code, 0, 'a full store still changes')
})
