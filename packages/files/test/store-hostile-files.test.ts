// Store files changed or broken by something other than a store: an editor
// saving over the file in place, a line too long to parse at once, a
// directory where the file should be. Each is read right or refused naming
// the file, never a crash or a store stuck on garbage.
import { test } from 'tap'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FileUserStore } from '@fastify-gatehouse/files'

const CHEAP = { N: 16, r: 1, p: 1 }

test('a journal rewritten in place (same inode and header, longer) is read whole by a running store, not called corrupt', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const store = await FileUserStore.open(path, { scrypt: CHEAP, watchInterval: 0 })
  await store.add('alice', { password: 'alice-pass' })
  await store.add('bob', { password: 'bob-pass' })
  t.equal((await store.get('bob'))?.enabled, true)
  // What an editor does: the same file, rewritten from the start; bob disabled by hand (one byte longer).
  const text = readFileSync(path, 'utf8')
  const edited = text.replace(/("identity":"bob"[^\n]*"enabled":)true/, '$1false')
  t.not(edited, text, 'the edit changed the file')
  writeFileSync(path, edited)
  t.equal((await store.get('bob'))?.enabled, false, 'the running store sees the edit')
  t.not(await store.verify('alice', 'alice-pass'), null, 'and still signs alice in')
})

test('a line too long is refused when written, and named with the file when read', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'users.json')
  const store = await FileUserStore.open(path, { scrypt: CHEAP })
  const tags = Array.from({ length: 120_000 }, (_, i) => `tag${i}`)
  await t.rejects(store.add('many', { password: 'many-pass', tags }), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: /over 1048576 bytes/ })
  await store.add('alice', { password: 'alice-pass' })
  // Appended by something else: one 2 MiB line.
  writeFileSync(path, readFileSync(path, 'utf8') + JSON.stringify({ put: { identity: 'huge', tags, enabled: true } }) + '\n')
  await t.rejects(FileUserStore.open(path, { scrypt: CHEAP }), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: new RegExp(`${path.replace(/[.]/g, '\\.')}.*a line longer than 1048576 bytes`) })
})

test('a directory where the file should be: an error naming the file', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  mkdirSync(path)
  await t.rejects(FileUserStore.open(path), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: new RegExp(path.replace(/[.]/g, '\\.')) })
})

test('a line that is not JSON is named by its number and position, never quoted (it may hold a hash)', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const store = await FileUserStore.open(path, { scrypt: CHEAP })
  await store.add('alice', { password: 'alice-pass' })
  const broken = readFileSync(path, 'utf8').replace(/"passwordHash":"(scrypt\$[^"]+)"/, '"passwordHash":$1')
  writeFileSync(path, broken)
  const err = await FileUserStore.open(path, { scrypt: CHEAP }).catch((e: Error) => e)
  t.match(err, { code: 'GATEHOUSE_AUTH_STORE_FILE', message: /line 2: not valid JSON/ })
  t.notMatch((err as Error).message, /scrypt\$/, 'no part of the hash in the message')
})
