// Store paths that are symbolic links to one file share its lock and write
// the file itself (D-AUTH-40): the lock is beside the real file, and a
// compaction replaces the file, never a link.
import { test } from 'tap'
import { lstatSync, readdirSync, realpathSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { FileApiKeyStore } from '@fastify-gatehouse/files'
import { readStoreFile } from '../../../test-helpers/store-files.js'
import { hookFs } from './helpers/fs-hooks.js'

test('two links to one store file and the file itself, written at once: one lock, no line lost, the links kept', { skip: process.platform === 'win32' ? 'symbolic links need privileges' : false }, async (t) => {
  const dir = t.testdir({ real: {} })
  const file = join(dir, 'real', 'keys.json')
  // Made before the file is: links to a file not yet written.
  symlinkSync(file, join(dir, 'a.json'))
  symlinkSync(join('real', 'keys.json'), join(dir, 'b.json'))
  const locks = new Set<string>()
  hookFs(t, ['mkdir'], (_fn, args) => { if (String(args[0]).endsWith('.lock')) locks.add(String(args[0])) })
  const stores = await Promise.all([join(dir, 'a.json'), join(dir, 'b.json'), file].map((path) => FileApiKeyStore.open(path)))
  t.teardown(() => Promise.all(stores.map((store) => store.close())))
  const issued = await Promise.all(stores.flatMap((store, s) => Array.from({ length: 10 }, (_, i) => store.issue({ label: `${s}-${i}` }))))
  t.ok(lstatSync(join(dir, 'a.json')).isSymbolicLink() && lstatSync(join(dir, 'b.json')).isSymbolicLink(), 'both links are still links')
  t.same([...locks], [`${realpathSync(file)}.lock`], 'every change took the one lock beside the real file')
  const records = readStoreFile(file).records
  t.equal(records.size, 30, 'every change is in the file')
  t.ok(issued.every(({ record }) => records.has(record.keyId)))
  t.same(readdirSync(join(dir, 'real')), ['keys.json'], 'no lock or temp file left')
})
