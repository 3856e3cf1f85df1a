import { test } from 'tap'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { FileApiKeyStore, FileUserStore } from '@gatehouse/auth'

const run = promisify(execFile)
const WRITER = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url))
const writer = (...args: string[]) => run(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', WRITER, ...args])

async function until (check: () => boolean, ms: number): Promise<number> {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return Date.now() - start
}

test('four processes issuing keys into one file at once lose nothing', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const outputs = await Promise.all([0, 1, 2, 3].map((p) => writer('keys', path, '8', `proc${p}`)))
  const keys = outputs.flatMap((o) => o.stdout.trim().split('\n'))
  t.equal(keys.length, 32)
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  t.equal((await store.list()).length, 32, 'every record is in the file')
  t.ok(keys.every((key) => store.verify(key) !== null), 'every issued key verifies')
})

test('four processes adding users into one file at once lose nothing', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  await Promise.all([0, 1, 2, 3].map((p) => writer('users', path, '5', `u${p}`)))
  const store = await FileUserStore.open(path, { scrypt: { N: 1024, r: 8, p: 1 } })
  const users = await store.list()
  t.equal(users.length, 20)
  t.not(await store.verify('u2-4', 'pw-u2-4'), null)
})

test('a running store sees keys issued and revoked by another process within a second', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const server = await FileApiKeyStore.open(path)
  t.teardown(() => server.close())
  const { stdout } = await writer('keys', path, '1', 'cli')
  const key = stdout.trim()
  const seen = await until(() => server.verify(key) !== null, 1000)
  t.ok(seen <= 1000, `issued key accepted after ${seen} ms`)
  const revoked = await writer('revoke', path, key.slice(4, 20))
  t.equal(revoked.stdout.trim(), 'true')
  const gone = await until(() => server.verify(key) === null, 1000)
  t.ok(gone <= 1000, `revoked key refused after ${gone} ms`)
})
