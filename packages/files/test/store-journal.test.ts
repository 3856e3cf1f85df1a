// The file stores' format, version 2: a journal of JSON lines (D-AUTH-23).
import { test } from 'tap'
import { createHash } from 'node:crypto'
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hashPassword } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { header, HEADER, readStoreFile, writeStoreFile } from '../../../test-helpers/store-files.js'
import { stillClock } from '../src/stores/still-clock.js'
import { fakeClockOn } from '../../../test-helpers/clock.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { as, hookFs } from './helpers/fs-hooks.js'

const FAST = { N: 16, r: 1, p: 1 }
const WHEN = '2026-01-01T00:00:00.000Z'
const SECRET = 'k'.repeat(43)
// sha256 of SECRET, base64url: keys written by hand verify with gak_<id>_<SECRET>.
const SECRET_HASH = 'sha256$' + createHash('sha256').update(SECRET).digest('base64url')

const keyRecord = (keyId: string, label = 'bot') => ({ keyId, label, tags: [], enabled: true, expiresAt: null, createdAt: WHEN, lastUsedAt: null, secretHash: SECRET_HASH })
const keyId = (i: number) => i.toString(16).padStart(16, '0')
const keyOf = (i: number) => `gak_${keyId(i)}_${SECRET}`

async function userRecord (identity: string, tags: string[] = []) {
  return { identity, tags, enabled: true, createdAt: WHEN, updatedAt: WHEN, passwordHash: await hashPassword('pw-' + identity, FAST) }
}

test('the file is a header line and one line per change; a change appends one line', async (t) => {
  const dir = t.testdir({})
  const users = await FileUserStore.open(join(dir, 'users.json'), { scrypt: FAST })
  await users.add('alice', { password: 'pw-alice', tags: 'ops' })
  await users.add('bob', { password: 'pw-bob' })
  await users.setTags('alice', 'admin')
  await users.delete('bob')
  const lines = readFileSync(join(dir, 'users.json'), 'utf8').split('\n')
  t.match(lines[0], HEADER('users'))
  t.match(lines.slice(1).map((l) => l === '' ? '' : Object.keys(JSON.parse(l))[0]), ['put', 'put', 'put', 'delete', ''], 'put, put, put, delete, then the final \\n')
  t.same(JSON.parse(lines[4]!), { delete: 'bob' })
  const file = readStoreFile(join(dir, 'users.json'))
  t.same([...file.records.keys()], ['alice'])
  t.match(file.records.get('alice'), { tags: ['admin'] })
  t.equal(statSync(join(dir, 'users.json')).mode & 0o777, 0o600)
})

test('a tail without its newline is ignored by readers, and dropped by the next writer', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  writeStoreFile(path, 'keys', [keyRecord(keyId(1))])
  // A crashed writer's line, cut short (store-tail.test.ts: one still being written is waited for).
  appendFileSync(path, '{"put":{"keyId":"00000000000000')
  const clock = fakeClockOn(t, stillClock)
  const reader = await FileApiKeyStore.open(path, { watchInterval: 60_000 })
  t.teardown(() => reader.close())
  t.match(await reader.list(), [{ keyId: keyId(1) }], 'the partial line is not read')
  t.not(reader.verify(keyOf(1)), null)
  const writer = await FileApiKeyStore.open(path)
  t.teardown(() => writer.close())
  // The writer drops the line once it has seen the file still for 10 s, on its own clock (D-AUTH-39).
  let reads = 0
  hookFs(t, ['open'], (_fn, args, who) => { if (who === 'W' && args[0] === path && args[1] === 'r') reads++ })
  const revoking = as('W', () => writer.revoke(keyId(1)))
  await waitUntil(() => reads >= 3, { what: 'the writer to look at the partial line' })
  clock.advance(10_001)
  t.equal(await revoking, true)
  const file = readStoreFile(path)
  t.equal(file.tail, '', 'no partial line left')
  t.same(file.entries.map((e) => Object.keys(e)[0]), ['put', 'put'], 'the writer truncated it before appending')
  t.match(file.records.get(keyId(1)), { enabled: false })
  t.equal(await reader.list().then((keys) => keys[0]!.enabled), false, 'the reader goes on from its offset')
})

test('compaction: once superseded lines outnumber the live records (and are 1000 or more), the file is rewritten with the live records only', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  // 10 keys, then 1200 superseded lines: the same key put again and again, and deleted keys.
  const lines: string[] = []
  for (let i = 0; i < 1000; i++) lines.push(JSON.stringify({ put: keyRecord(keyId(1), `label-${i}`) }))
  for (let i = 100; i < 300; i++) lines.push(JSON.stringify({ put: keyRecord(keyId(i)) }), JSON.stringify({ delete: keyId(i) }))
  writeStoreFile(path, 'keys', Array.from({ length: 10 }, (_, i) => keyRecord(keyId(i))), lines)
  const before = statSync(path)
  const firstHeader = readFileSync(path, 'utf8').split('\n')[0]
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  t.match(await store.list(), Array.from({ length: 10 }, (_, i) => ({ keyId: keyId(i) })))
  t.match((await store.list()).find((k) => k.keyId === keyId(1)), { label: 'label-999' }, 'the last put wins')
  t.equal(await store.revoke(keyId(2)), true)
  const after = statSync(path)
  t.not(readFileSync(path, 'utf8').split('\n')[0], firstHeader, 'written whole, with a new header id')
  t.ok(after.size < before.size / 10, `${before.size} → ${after.size} bytes`)
  t.equal(after.mode & 0o777, 0o600)
  const file = readStoreFile(path)
  t.equal(file.entries.length, 10, 'one line per live record')
  t.match(file.records.get(keyId(1)), { label: 'label-999' })
  t.match(file.records.get(keyId(2)), { enabled: false }, 'with the change that triggered it')
  t.same([...file.records.keys()], Array.from({ length: 10 }, (_, i) => keyId(i)), 'in the order the store lists them (a changed record keeps its place)')
  t.same((await store.list()).map((k) => k.keyId), [...file.records.keys()])
  t.same(readdirSync(dir), ['keys.json'], 'no temp file left')
  t.not(store.verify(keyOf(3)), null)
  const reopened = await FileApiKeyStore.open(path)
  t.teardown(() => reopened.close())
  t.equal((await reopened.list()).length, 10)
})

test('a compaction fsyncs the folder after renaming the new file over the store: a power loss cannot bring the old file back', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  const steps: string[] = []
  hookFs(t, ['rename', 'open'], async (fn, args, who) => {
    if (who !== 'S') return
    if (fn === 'rename' && args[1] === path) steps.push('rename over the store')
    if (fn === 'open' && args[0] === dir) {
      const { open } = await import('node:fs/promises')
      const handle = await as('', () => open(dir, 'r'))
      const sync = handle.sync.bind(handle)
      handle.sync = async () => { await sync(); steps.push('fsync the folder') }
      return handle
    }
  })
  // The first change writes the file whole (a compaction of nothing).
  await as('S', () => store.issue({ label: 'first' }))
  t.same(steps, ['rename over the store', 'fsync the folder'])
})

test('a version 1 file opens, and the first change converts it to the journal', async (t) => {
  const dir = t.testdir({})
  const users = join(dir, 'users.json')
  const keys = join(dir, 'keys.json')
  // As earlier versions wrote them: one pretty-printed document.
  writeFileSync(users, JSON.stringify({ version: 1, users: [await userRecord('alice', ['ops']), await userRecord('bob')] }, null, 2) + '\n', { mode: 0o600 })
  writeFileSync(keys, JSON.stringify({ version: 1, keys: [keyRecord(keyId(1)), keyRecord(keyId(2))] }, null, 2) + '\n', { mode: 0o600 })
  const userStore = await FileUserStore.open(users, { scrypt: FAST })
  const keyStore = await FileApiKeyStore.open(keys)
  t.teardown(() => keyStore.close())
  t.match(await userStore.verify('alice', 'pw-alice'), { identity: 'alice', tags: ['ops'] })
  t.not(keyStore.verify(keyOf(2)), null)
  t.equal(readStoreFile(users).version, 1, 'reading does not convert')
  await userStore.setEnabled('bob', false)
  await keyStore.delete(keyId(1))
  for (const [path, name, ids] of [[users, 'users', ['alice', 'bob']], [keys, 'keys', [keyId(2)]]] as const) {
    const file = readStoreFile(path)
    t.equal(file.version, 2, `${name}: converted`)
    t.match(readFileSync(path, 'utf8').split('\n')[0], HEADER(name))
    t.same([...file.records.keys()].sort(), ids)
    t.equal(statSync(path).mode & 0o777, 0o600)
  }
  t.match(readStoreFile(users).records.get('bob'), { enabled: false })
  t.not(await userStore.verify('alice', 'pw-alice'), null)
  const again = await FileUserStore.open(users, { scrypt: FAST })
  t.equal(await again.verify('bob', 'pw-bob'), null, 'bob stays disabled')
  t.not(await again.verify('alice', 'pw-alice'), null)
})

test('a corrupt line is an error naming the file and the line', async (t) => {
  const dir = t.testdir({})
  const good = JSON.stringify({ put: keyRecord(keyId(1)) })
  const cases: Array<[string, string, RegExp]> = [
    ['not-json', [header('keys'), good, '{"put":', good].join('\n') + '\n', /: line 3: not valid JSON/],
    ['bad-record', [header('keys'), good, JSON.stringify({ put: { ...keyRecord(keyId(2)), secretHash: 'md5' } })].join('\n') + '\n', /: line 3: unexpected content at \/put\/secretHash: /],
    ['extra-field', [header('keys'), JSON.stringify({ put: { ...keyRecord(keyId(2)), secret: 'x' } })].join('\n') + '\n', /: line 2: unexpected content at \/put\/secret: unexpected property/],
    ['bad-delete', [header('keys'), good, '{"delete":"zz"}'].join('\n') + '\n', /: line 3: unexpected content at \/delete: expected a key id/],
    ['bad-used', [header('keys'), good, `{"used":{"${keyId(1)}":"yesterday"}}`].join('\n') + '\n', /: line 3: unexpected content at \/used\/0000000000000001: expected an ISO 8601 time/],
    ['unknown-op', [header('keys'), good, '{"patch":{}}'].join('\n') + '\n', /: line 3: unexpected content: expected one of put, delete, used/],
    ['not-object', [header('keys'), '[1]'].join('\n') + '\n', /: line 2: unexpected content: expected an object/],
    ['v1-array', '[]', /: unexpected content at \/: expected object/],
    ['v1-no-keys', '{"version":1,"users":[]}', /: unexpected content at \/keys: expected array/],
    ['users-file', [header('users')].join('\n') + '\n', /: line 1: a store of "users", not of keys/],
    ['newer', '{"gatehouse":"keys","version":3}\n', /: line 1: format version 3: this Gatehouse reads version 2/]
  ]
  for (const [name, text, message] of cases) {
    writeFileSync(join(dir, name), text)
    await t.rejects(FileApiKeyStore.open(join(dir, name)), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: new RegExp(`^Store file ${join(dir, name)}${message.source}`) }, name)
  }
  writeFileSync(join(dir, 'big.json'), JSON.stringify({ version: 1, keys: Array.from({ length: 30 }, (_, i) => keyRecord(keyId(i))) }, null, 2))
  await t.rejects(FileApiKeyStore.open(join(dir, 'big.json'), { maxFileBytes: 4096 }), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: /big\.json: a version 1 document of \d+ bytes, over maxFileBytes \(4096\): raise maxFileBytes to open it$/ }, 'a version 1 document is read whole: it must fit in maxFileBytes')
  writeFileSync(join(dir, 'users.json'), [header('users'), '{"used":{}}'].join('\n') + '\n')
  await t.rejects(FileUserStore.open(join(dir, 'users.json')), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: /users\.json: line 2: unexpected content: expected one of put, delete$/ }, 'a user file has no used lines')
})

test('a running key store keeps serving the keys it has when a corrupt line is appended, and refuses to write past it', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  writeStoreFile(path, 'keys', [keyRecord(keyId(1))])
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  appendFileSync(path, '{ broken\n')
  t.equal((await store.list()).length, 1, 'list() reloads, fails, and keeps the keys')
  t.not(store.verify(keyOf(1)), null)
  const size = statSync(path).size
  await t.rejects(store.issue({ label: 'x' }), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: /keys\.json: line 3: not valid JSON/ })
  t.equal(statSync(path).size, size, 'nothing written')
})

test('last uses are appended as one line of the keys used, and folded in by readers and compaction', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  writeStoreFile(path, 'keys', [keyRecord(keyId(1)), keyRecord(keyId(2)), keyRecord(keyId(3))])
  const store = await FileApiKeyStore.open(path)
  t.not(store.verify(keyOf(1)), null)
  t.not(store.verify(keyOf(3)), null)
  const before = readFileSync(path, 'utf8')
  await store.close()
  const after = readFileSync(path, 'utf8')
  t.ok(after.startsWith(before), 'appended')
  const line = JSON.parse(after.slice(before.length)) as { used: Record<string, string> }
  t.same(Object.keys(line.used).sort(), [keyId(1), keyId(3)], 'only the keys used')
  const reader = await FileApiKeyStore.open(path)
  t.teardown(() => reader.close())
  const listed = await reader.list()
  t.match(listed.find((k) => k.keyId === keyId(1))?.lastUsedAt, /^\d{4}-/)
  t.equal(listed.find((k) => k.keyId === keyId(2))?.lastUsedAt, null)
})
