import { createHash } from 'node:crypto'
import t0, { test } from 'tap'
import fastifyEtag from '@fastify/etag'
import type { CacheOptions } from '@fastify-gatehouse/cache'
import { contentEtagSetter } from '../src/content-etag.js'
import { build, fixture, IF_MATCH_FAILED } from './helpers/build.js'

const { file, cleanup } = fixture()
t0.teardown(cleanup)
// @fastify/etag's default: a strong tag of the body's SHA-1, base64.
const tagOf = (body: string, algorithm = 'sha1') => `"${createHash(algorithm).update(body).digest('base64')}"`
const JSON_BODY = JSON.stringify({ hello: 'world' })

async function withRoutes (etag: 'file' | 'content', more: CacheOptions = {}) {
  return build(file, { etag, ...more }, (app) => {
    app.post('/json', async () => ({ hello: 'world' }))
    app.get('/missing', async (_req, reply) => reply.code(404).send({ error: 'nope' }))
    app.get('/own', async (_req, reply) => reply.header('etag', '"mine"').send({ hello: 'world' }))
  })
}

test("etag: 'content' gives GET and HEAD 200 responses a hash ETag (via @fastify/etag)", async (t) => {
  const app = await withRoutes('content')
  t.teardown(() => app.close())
  const res = await app.inject('/json')
  t.equal(res.statusCode, 200)
  t.equal(res.body, JSON_BODY)
  t.equal(res.headers.etag, tagOf(JSON_BODY))
  t.equal(res.headers['cache-control'], undefined, 'dynamic responses get no Cache-Control')
  t.equal((await app.inject({ method: 'HEAD', url: '/json' })).headers.etag, tagOf(JSON_BODY))
})

test("etag: 'content' answers If-None-Match with 304 per RFC 9110 (lists, weak, *)", async (t) => {
  const app = await withRoutes('content')
  t.teardown(() => app.close())
  const tag = tagOf(JSON_BODY)
  for (const value of [tag, `W/${tag}`, `"x", ${tag}`, '*']) {
    const res = await app.inject({ url: '/json', headers: { 'if-none-match': value } })
    t.equal(res.statusCode, 304, value)
    t.equal(res.body, '')
    t.equal(res.headers.etag, tag)
  }
  t.equal((await app.inject({ url: '/json', headers: { 'if-none-match': '"stale"' } })).statusCode, 200)
})

test("etag: 'content' leaves other methods, other statuses and the route's own ETag alone", async (t) => {
  const app = await withRoutes('content')
  t.teardown(() => app.close())
  const post = await app.inject({ method: 'POST', url: '/json', headers: { 'if-none-match': '*' } })
  t.equal(post.statusCode, 200)
  t.equal(post.headers.etag, undefined)
  const missing = await app.inject({ url: '/missing', headers: { 'if-none-match': '*' } })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers.etag, undefined)
  const own = await app.inject('/own')
  t.equal(own.headers.etag, '"mine"')
})

test("etag: 'content' keeps the file validators for file responses", async (t) => {
  const app = await withRoutes('content')
  t.teardown(() => app.close())
  const res = await app.inject('/file')
  t.match(res.headers.etag, /^"[0-9a-f]+-[0-9a-f]+"$/)
  t.equal(res.headers['cache-control'], 'public, max-age=3600')
})

test("the default etag: 'file' hashes nothing", async (t) => {
  const app = await withRoutes('file')
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/json', headers: { 'if-none-match': tagOf(JSON_BODY) } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.etag, undefined)
})

test('an @fastify/etag that adds no onSend hook is a coded boot error, not an uncoded TypeError', async (t) => {
  const err = await contentEtagSetter(async () => {}).catch((e: unknown) => e)
  t.ok(err instanceof TypeError, 'a boot error, TypeError as before')
  t.match(err, {
    code: 'GATEHOUSE_CACHE_ETAG_UNSUPPORTED',
    statusCode: 500,
    message: /^etag: 'content' cannot be served: @fastify\/etag added no onSend hook/
  })
})

test("etagAlgorithm: 'fnv1a' gives @fastify/etag's FNV-1a tag, without its deprecation warning", async (t) => {
  const warnings: Error[] = []
  const onWarning = (w: Error) => { warnings.push(w) }
  process.on('warning', onWarning)
  t.teardown(() => { process.off('warning', onWarning) })
  const app = await withRoutes('content', { etagAlgorithm: 'fnv1a' })
  t.teardown(() => app.close())
  const tag = `"${fastifyEtag.fnv1a(JSON_BODY)}"`
  t.match(tag, /^"[0-9a-z]{1,7}"$/, 'a 32-bit hash in base 36')
  const res = await app.inject('/json')
  t.equal(res.statusCode, 200)
  t.equal(res.body, JSON_BODY)
  t.equal(res.headers.etag, tag)
  t.not(res.headers.etag, tagOf(JSON_BODY))
  const again = await app.inject({ url: '/json', headers: { 'if-none-match': tag } })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  // process 'warning' events are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve))
  t.same(warnings.filter((w) => /fnv1a|FSTETAGDEP/.test(`${w.message} ${(w as { code?: string }).code}`)), [])
})

test('etagAlgorithm: any node:crypto hash, as @fastify/etag computes it', async (t) => {
  for (const algorithm of ['md5', 'sha256', 'sha512']) {
    const app = await withRoutes('content', { etagAlgorithm: algorithm })
    const res = await app.inject('/json')
    t.equal(res.statusCode, 200)
    t.equal(res.headers.etag, tagOf(JSON_BODY, algorithm), algorithm)
    t.equal((await app.inject({ url: '/json', headers: { 'if-none-match': tagOf(JSON_BODY, algorithm) } })).statusCode, 304, algorithm)
    await app.close()
  }
})

test('weakEtags: content ETags are W/, match If-None-Match weakly and never If-Match', async (t) => {
  const app = await withRoutes('content', { weakEtags: true })
  t.teardown(() => app.close())
  const tag = tagOf(JSON_BODY)
  const res = await app.inject('/json')
  t.equal(res.statusCode, 200)
  t.equal(res.headers.etag, `W/${tag}`)
  for (const value of [tag, `W/${tag}`]) {
    const conditional = await app.inject({ url: '/json', headers: { 'if-none-match': value } })
    t.equal(conditional.statusCode, 304, value)
    t.equal(conditional.headers.etag, `W/${tag}`)
  }
  // RFC 9110 §13.1.1: If-Match uses the strong comparison; a weak tag never passes it.
  const refused = await app.inject({ url: '/json', headers: { 'if-match': `W/${tag}` } })
  t.equal(refused.statusCode, 412)
  t.equal(refused.json().code, 'GATEHOUSE_CACHE_PRECONDITION_FAILED')
  t.equal((await app.inject({ url: '/json', headers: { 'if-match': '*' } })).statusCode, 200)
})

test("etag: 'content' responses answer If-Match with the strong comparison", async (t) => {
  const app = await withRoutes('content', { etagAlgorithm: 'fnv1a' })
  t.teardown(() => app.close())
  const tag = `"${fastifyEtag.fnv1a(JSON_BODY)}"`
  const ok = await app.inject({ url: '/json', headers: { 'if-match': `"old", ${tag}` } })
  t.equal(ok.statusCode, 200)
  t.equal(ok.body, JSON_BODY)
  const refused = await app.inject({ url: '/json', headers: { 'if-match': '"old"' } })
  t.equal(refused.statusCode, 412)
  t.same(refused.json(), IF_MATCH_FAILED)
  t.equal(refused.headers.etag, tag, 'the current ETag is still named')
})

test('contentEtagSetter hands @fastify/etag the hash and weakness it was given', async (t) => {
  const seen: object[] = []
  await contentEtagSetter(async (app, opts) => { seen.push(opts); app.addHook('onSend', () => {}) }, { algorithm: 'md5', weak: true })
  await contentEtagSetter(async (app, opts) => { seen.push(opts); app.addHook('onSend', () => {}) }, { algorithm: 'fnv1a', weak: false })
  t.same(seen[0], { replyWith304: false, weak: true, algorithm: 'md5' })
  t.same(seen[1], { replyWith304: false, weak: false, hashFn: fastifyEtag.fnv1a })
})
