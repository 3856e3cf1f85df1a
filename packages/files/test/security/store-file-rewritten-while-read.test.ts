import { test } from 'tap'
import { open, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { FileApiKeyStore } from '@fastify-gatehouse/files'

// A file store (API keys here; users share the journal code) rereads its file when it changes. A file cut or rewritten in
// place (an editor saving, `writeFile`) between the reader's stat and its
// read used to read as a journal with no records: every key and user was
// dropped, and kept dropped while the new content was corrupt. Found by CI
// beside stress-ng. D-AUTH-81.

type ReadFn = (...args: unknown[]) => Promise<{ bytesRead: number }>

/**
 * Has `rewrite` run right after the next FileHandle read: the reader has
 * stat'ed the file and read its first line (the journal's header), and
 * reads the rest from a file that is no longer what it stat'ed.
 */
async function rewriteAfterNextRead (path: string, rewrite: () => Promise<void>): Promise<() => void> {
  const probe = await open(path, 'r')
  const proto = Object.getPrototypeOf(probe) as { read: ReadFn }
  await probe.close()
  const original = proto.read
  let armed = true
  proto.read = async function (this: unknown, ...args: unknown[]) {
    const result = await original.apply(this, args)
    if (armed) {
      armed = false
      await rewrite()
    }
    return result
  }
  return () => { proto.read = original }
}

test('an API key file cut and rewritten in place while it is read keeps serving the last valid keys', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const store = await FileApiKeyStore.open(path, { watchInterval: 60_000 })
  t.teardown(() => store.close())
  const { key } = await store.issue({ label: 'x' })
  // The reader stats the journal and reads its header; the rest it reads from a short corrupt text.
  const restore = await rewriteAfterNextRead(path, async () => { await writeFile(path, '{ broken') })
  t.teardown(restore)
  t.equal((await store.list()).length, 1, 'the keys read before are kept')
  restore()
  t.not(store.verify(key), null, 'the key still verifies')
  t.equal((await store.list()).length, 1, 'and the corrupt file, read whole, changes nothing')
  // A valid file written afterwards is read at the next look (the cut read was not remembered as a failure).
  await writeFile(path, JSON.stringify({ version: 1, keys: [] }))
  t.equal((await store.list()).length, 0, 'a valid file written later is read')
})
