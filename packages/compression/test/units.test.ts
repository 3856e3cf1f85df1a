import { test } from 'tap'
import { Readable } from 'node:stream'
import { isCompressible, memo, MEMO_ENTRIES } from '../src/compressible.js'
import { peekFirstChunk } from '../src/precompressed.js'

test('compressible types: text/*, JSON, JavaScript, XML, SVG and the +json/+xml families', async (t) => {
  for (const type of ['text/plain', 'text/html; charset=utf-8', 'text/css', 'text/javascript', 'TEXT/CSV',
    'application/json', 'application/json; charset=utf-8', 'application/javascript', 'application/x-javascript',
    'application/ecmascript', 'application/xml', 'image/svg+xml', 'application/problem+json', 'application/ld+json',
    'application/atom+xml', 'application/vnd.api+json', ' Application/JSON ;charset=utf-8']) {
    t.ok(isCompressible(type), type)
  }
  for (const type of [undefined, '', 'image/png', 'application/octet-stream', 'application/gzip', 'video/mp4',
    'text/event-stream', 'application/jsonx', 'application/json-seq-not', 42, ['text/plain']]) {
    t.notOk(isCompressible(type), String(type))
  }
})

test('the memory of Content-Type answers is bounded under a flood of odd types', async (t) => {
  t.equal(memo.max, MEMO_ENTRIES)
  t.ok(isCompressible('application/json'))
  let largest = 0
  let wrong = 0
  for (let i = 0; i < MEMO_ENTRIES * 20; i++) {
    if (isCompressible(`application/x-odd-${i}`)) wrong++
    if (i % 50 === 0 && !isCompressible('application/json')) wrong++
    largest = Math.max(largest, memo.size)
  }
  t.equal(wrong, 0, 'every answer right')
  t.equal(largest, MEMO_ENTRIES, 'the memory never held more than its bound')
  t.equal(memo.size, MEMO_ENTRIES, 'full, not more')
  t.notOk(memo.has('application/x-odd-0'), 'the oldest types were dropped')
  t.ok(isCompressible('application/json'), 'a type in use is still answered right')
  t.ok(isCompressible(`text/${'x'.repeat(200)}`), 'a long value is answered')
  t.notOk(memo.has(`text/${'x'.repeat(200)}`), 'but not remembered')
})

test('peekFirstChunk answers at once for a stream already over (no event would come again: the request would hang)', async (t) => {
  const failed = new Readable({ read () {} })
  failed.on('error', () => {})
  failed.destroy(new Error('ENOENT'))
  await new Promise((resolve) => setImmediate(resolve))
  const ended = Readable.from([])
  ended.resume()
  await new Promise((resolve) => ended.once('end', resolve))
  for (const [name, stream] of [['destroyed with an error', failed], ['ended', ended]] as const) {
    const got = await new Promise((resolve) => { peekFirstChunk(stream, resolve) })
    t.equal(got, null, name)
  }
  const live = Readable.from([Buffer.from('abc')])
  const first = await new Promise((resolve) => { peekFirstChunk(live, resolve) })
  t.same(first, Buffer.from('abc'), 'a live stream still gives its first chunk')
})
