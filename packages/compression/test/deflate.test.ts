// The deflate coding (RFC 9110 §8.4.1.2: the zlib format), negotiated
// with q-values beside gzip and br, and turned on and off by `encodings`.
import { Readable } from 'node:stream'
import { brotliDecompressSync, deflateSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib'
import { test } from 'tap'
import { build, text } from './helpers/build.js'

const ALL = { encodings: ['br' as const, 'gzip' as const, 'deflate' as const] }

function decode (coding: string | undefined, body: Buffer): string {
  if (coding === 'gzip') return gunzipSync(body).toString()
  if (coding === 'br') return brotliDecompressSync(body).toString()
  if (coding === 'deflate') return inflateSync(body).toString()
  return body.toString()
}

test('deflate is the zlib format: a zlib header, inflateSync decodes it, raw inflate does not', async (t) => {
  const app = await build({ encodings: ['deflate'] })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/json?n=5000', headers: { 'accept-encoding': 'deflate' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], 'deflate')
  t.equal(res.headers.vary, 'Accept-Encoding')
  t.equal(res.headers['content-length'], String(res.rawPayload.length))
  t.equal(res.rawPayload[0], 0x78, 'CMF: deflate, 32 KiB window (RFC 1950)')
  t.equal(((res.rawPayload[0]! << 8) + res.rawPayload[1]!) % 31, 0, 'FCHECK')
  t.same(JSON.parse(inflateSync(res.rawPayload).toString()), { data: text(5000) })
  t.throws(() => inflateRawSync(res.rawPayload), 'not raw deflate')
  t.same(res.rawPayload, deflateSync(JSON.stringify({ data: text(5000) }), { level: 6 }), 'zlib.deflateSync at level 6')
})

test('negotiation over three codings: weights first, then the server order; deflate only when listed', async (t) => {
  const app = await build(ALL)
  t.teardown(() => app.close())
  for (const [header, expected] of [
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate', 'gzip'],
    ['deflate', 'deflate'],
    ['deflate, gzip;q=0.5', 'deflate'],
    ['br;q=0.2, gzip;q=0.1, deflate;q=0.3', 'deflate'],
    ['gzip;q=0, br;q=0, *', 'deflate'],
    ['deflate;q=0, gzip;q=0', undefined],
    ['identity', undefined],
    ['*', 'br'],
    ['deflate;q=0.5, identity', undefined]
  ] as const) {
    const res = await app.inject({ url: '/text?n=5000', headers: { 'accept-encoding': header } })
    t.equal(res.headers['content-encoding'], expected, header)
    t.equal(decode(res.headers['content-encoding'] as string | undefined, res.rawPayload), text(5000), `${header}: round-trips`)
  }
  const gzipOnly = await build()
  t.teardown(() => gzipOnly.close())
  t.equal((await gzipOnly.inject({ url: '/text', headers: { 'accept-encoding': 'deflate' } })).headers['content-encoding'], undefined, 'not offered by default')
  const noDeflate = await build({ encodings: ['br', 'gzip'] })
  t.teardown(() => noDeflate.close())
  t.equal((await noDeflate.inject({ url: '/text', headers: { 'accept-encoding': 'deflate' } })).headers['content-encoding'], undefined, 'off when not listed')
  const preferred = await build({ encodings: ['deflate', 'gzip'] })
  t.teardown(() => preferred.close())
  t.equal((await preferred.inject({ url: '/text', headers: { 'accept-encoding': 'gzip, deflate' } })).headers['content-encoding'], 'deflate', 'the order given is the order used')
})

test('deflate for large bodies (thread pool), streams and HEAD', async (t) => {
  const app = await build({ encodings: ['deflate'] }, (app) => {
    app.get('/stream', async (_req, reply) => reply.type('text/plain').header('etag', '"s"').send(Readable.from([text(3000), text(3000)])))
  })
  t.teardown(() => app.close())
  const headers = { 'accept-encoding': 'deflate' }
  const large = await app.inject({ url: '/text?n=300000', headers })
  t.equal(large.headers['content-encoding'], 'deflate')
  t.equal(inflateSync(large.rawPayload).toString(), text(300000))
  const stream = await app.inject({ url: '/stream', headers })
  t.equal(stream.headers['content-encoding'], 'deflate')
  t.equal(stream.headers.etag, 'W/"s"')
  t.equal(stream.headers['content-length'], undefined)
  t.equal(inflateSync(stream.rawPayload).toString(), text(3000) + text(3000))
  const get = await app.inject({ url: '/text?n=4000', headers })
  const head = await app.inject({ method: 'HEAD', url: '/text?n=4000', headers })
  t.equal(head.headers['content-encoding'], 'deflate')
  t.equal(head.headers['content-length'], get.headers['content-length'])
  t.equal(head.rawPayload.length, 0)
})
