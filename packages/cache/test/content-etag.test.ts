import { createHash } from 'node:crypto'
import t0, { test } from 'tap'
import { contentEtagSetter } from '../src/content-etag.js'
import { build, fixture } from './helpers/build.js'

const { file, cleanup } = fixture()
t0.teardown(cleanup)
// @fastify/etag's default: a strong tag of the body's SHA-1, base64.
const tagOf = (body: string) => `"${createHash('sha1').update(body).digest('base64')}"`
const JSON_BODY = JSON.stringify({ hello: 'world' })

async function withRoutes (etag: 'file' | 'content') {
  return build(file, { etag }, (app) => {
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
