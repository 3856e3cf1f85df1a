import { test } from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/auth'

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

/**
 * Runs one writer per prefix against `path`, all held at a barrier until
 * each has started and opened its store, then released together. Resolves
 * with each writer's output lines and its write window.
 */
async function together (kind: 'keys' | 'users', path: string, count: number, prefixes: string[]) {
  // Beside the store file: a second t.testdir() in one test is the same folder.
  const barrier = join(dirname(path), 'barrier')
  mkdirSync(barrier)
  const writers = prefixes.map((p) => writer(kind, path, String(count), p, barrier))
  await until(() => prefixes.every((p) => existsSync(join(barrier, `ready-${p}`))), 30_000)
  writeFileSync(join(barrier, 'go'), '')
  const outputs = await Promise.all(writers)
  return outputs.map(({ stdout }) => {
    const lines = stdout.trim().split('\n')
    const [, start, end] = lines.pop()!.split(' ').map(Number) as [number, number, number]
    return { lines, start, end }
  })
}

test('four processes issuing keys into one file at once lose nothing', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  let reads = 0
  const unreadable: string[] = []
  let writing = true
  // Every read while the others write sees a whole document: writes go to a
  // temp file that is renamed over the store, never into the store in place.
  const reader = (async () => {
    // Wait quietly for the first write (the writers start meanwhile), then read as fast as possible.
    // eslint-disable-next-line no-unmodified-loop-condition -- the writers clear it while this loop awaits
    while (writing && !existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 10))
    // eslint-disable-next-line no-unmodified-loop-condition -- the writers clear it while this loop awaits
    while (writing) {
      try {
        JSON.parse(readFileSync(path, 'utf8'))
        reads++
      } catch (err) {
        unreadable.push((err as Error).message)
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  const results = await together('keys', path, 16, ['p0', 'p1', 'p2', 'p3']).finally(() => { writing = false })
  await reader
  t.ok(Math.max(...results.map((r) => r.start)) < Math.min(...results.map((r) => r.end)), 'the four writers were writing at the same time')
  const keys = results.flatMap((r) => r.lines)
  t.equal(keys.length, 64)
  t.same(unreadable, [], `${reads} reads during the writes, none of a partial file`)
  t.ok(reads > 0)
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  t.equal((await store.list()).length, 64, 'every record is in the file')
  t.ok(keys.every((key) => store.verify(key) !== null), 'every issued key verifies')
  t.same(readdirSync(dirname(path)).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock')), [], 'no temp file or lock left behind')
})

test('four processes adding users into one file at once lose nothing', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const results = await together('users', path, 8, ['u0', 'u1', 'u2', 'u3'])
  t.ok(Math.max(...results.map((r) => r.start)) < Math.min(...results.map((r) => r.end)), 'the four writers were writing at the same time')
  const store = await FileUserStore.open(path, { scrypt: { N: 1024, r: 8, p: 1 } })
  const users = await store.list()
  t.equal(users.length, 32)
  t.not(await store.verify('u2-7', 'pw-u2-7'), null)
})

test('a change replaces the file (temp file renamed over it), never rewrites it in place', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  await store.issue({ label: 'first' })
  const before = statSync(path)
  await store.issue({ label: 'second' })
  const after = statSync(path)
  t.not(after.ino, before.ino, 'a new inode: the old file was replaced whole')
  t.equal(after.mode & 0o777, 0o600)
  t.same(readdirSync(dirname(path)), ['keys.json'], 'the temp file is gone')
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
