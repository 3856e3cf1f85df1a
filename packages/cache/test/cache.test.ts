import { createReadStream, openSync, readFileSync } from 'node:fs'
import t0, { test } from 'tap'
import Fastify from 'fastify'
import { recipeFromConfig } from '@fastify-gatehouse/core'
import { cacheDefaults, cachePlugin } from '@fastify-gatehouse/cache'
import { build, CONTENT, fixture, MTIME, MTIME_HTTP } from './helpers/build.js'

const { file, dir, cleanup } = fixture()
t0.teardown(cleanup)
const FILE_ETAG = `"${Buffer.byteLength(CONTENT).toString(16)}-${MTIME.getTime().toString(16)}"`

test('defaults: max_age 3600, public, not immutable, strong file ETags only, ranges served', async (t) => {
  t.same(cacheDefaults, { maxAge: 3600, public: true, immutable: false, etag: 'file', etagAlgorithm: 'sha1', weakEtags: false, acceptRanges: true })
  t.ok(Object.isFrozen(cacheDefaults))
  t.same(cachePlugin.component, { name: 'cache', order: 900, default: false, schema: cachePlugin.component.schema })
})

test('a route that sets request.scope.filePath gets ETag, Last-Modified and Cache-Control', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await app.inject('/file')
  t.equal(res.statusCode, 200)
  t.equal(res.body, CONTENT)
  t.equal(res.headers.etag, FILE_ETAG, 'strong, from size and mtime')
  t.equal(res.headers['last-modified'], MTIME_HTTP)
  t.equal(res.headers['cache-control'], 'public, max-age=3600')
})

test('a route that sends an fs.ReadStream gets the same validators', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await app.inject('/stream')
  t.equal(res.statusCode, 200)
  t.equal(res.body, CONTENT)
  t.equal(res.headers.etag, FILE_ETAG)
  t.equal(res.headers['last-modified'], MTIME_HTTP)
  t.equal(res.headers['cache-control'], 'public, max-age=3600')
})

test('the ETag changes when the file does', async (t) => {
  const { file: other, cleanup: done } = fixture()
  t.teardown(done)
  const app = await build(other)
  t.teardown(() => app.close())
  const before = (await app.inject('/file')).headers.etag
  const { writeFileSync, utimesSync } = await import('node:fs')
  writeFileSync(other, CONTENT + 'more')
  utimesSync(other, MTIME, MTIME)
  const after = (await app.inject('/file')).headers.etag
  t.not(after, before, 'size is part of the tag')
})

test('maxAge, public and immutable shape Cache-Control', async (t) => {
  for (const [options, expected] of [
    [{ maxAge: 60 }, 'public, max-age=60'],
    [{ maxAge: 0 }, 'public, max-age=0'],
    [{ public: false }, 'private, max-age=3600'],
    [{ immutable: true }, 'public, max-age=3600, immutable'],
    [{ maxAge: 31536000, public: false, immutable: true }, 'private, max-age=31536000, immutable']
  ] as const) {
    const app = await build(file, options)
    const res = await app.inject('/file')
    t.equal(res.headers['cache-control'], expected, JSON.stringify(options))
    await app.close()
  }
})

test('a response to an authenticated caller is private even with public: true', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/mine', async (request, reply) => {
      request.scope.auth = { identity: 'alice', tags: [], backend: 'basic' } as never
      request.scope.filePath = file
      return reply.type('text/plain').send(readFileSync(file))
    })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/mine')
  t.equal(res.headers['cache-control'], 'private, max-age=3600')
  t.equal(res.headers.etag, FILE_ETAG)
})

test('headers the route set are kept, and used for the conditional decision', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/own', async (request, reply) => {
      request.scope.filePath = file
      return reply.type('text/plain')
        .header('etag', '"route-tag"')
        .header('cache-control', 'no-cache')
        .header('last-modified', 'Sun, 06 Nov 1994 08:49:37 GMT')
        .send(readFileSync(file))
    })
  })
  t.teardown(() => app.close())
  const res = await app.inject('/own')
  t.equal(res.headers.etag, '"route-tag"')
  t.equal(res.headers['cache-control'], 'no-cache')
  t.equal(res.headers['last-modified'], 'Sun, 06 Nov 1994 08:49:37 GMT')
  t.equal((await app.inject({ url: '/own', headers: { 'if-none-match': '"route-tag"' } })).statusCode, 304)
  t.equal((await app.inject({ url: '/own', headers: { 'if-none-match': FILE_ETAG } })).statusCode, 200, 'the file tag is not the one sent')
  t.equal((await app.inject({ url: '/own', headers: { 'if-modified-since': 'Sun, 06 Nov 1994 08:49:37 GMT' } })).statusCode, 304)
})

test('only GET and HEAD: other methods get no validators and no 304', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/file', headers: { 'if-none-match': '*' } })
  t.equal(res.statusCode, 200)
  t.equal(res.body, CONTENT)
  t.equal(res.headers.etag, undefined)
  t.equal(res.headers['cache-control'], undefined)
  t.equal(res.headers['last-modified'], undefined)
  const head = await app.inject({ method: 'HEAD', url: '/file' })
  t.equal(head.statusCode, 200)
  t.equal(head.headers.etag, FILE_ETAG)
  t.equal(head.body, '')
})

test('responses that are not files get nothing in the default mode', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/fd', async (_request, reply) => reply.type('text/plain').send(createReadStream('', { fd: openSync(file, 'r') })))
  })
  t.teardown(() => app.close())
  const json = await app.inject('/json')
  t.equal(json.statusCode, 200)
  t.same(json.json(), { hello: 'world' })
  t.equal(json.headers.etag, undefined)
  t.equal(json.headers['cache-control'], undefined)
  const fd = await app.inject('/fd')
  t.equal(fd.body, CONTENT)
  t.equal(fd.headers.etag, undefined, 'a stream opened from a descriptor has no path to stat')
})

test('non-200 responses are left alone', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/created', async (request, reply) => { request.scope.filePath = file; return reply.code(203).send('x') })
    app.get('/gone', async (request) => { request.scope.filePath = file; throw Object.assign(new Error('gone'), { statusCode: 410 }) })
  })
  t.teardown(() => app.close())
  const created = await app.inject({ url: '/created', headers: { 'if-none-match': '*' } })
  t.equal(created.statusCode, 203)
  t.equal(created.headers.etag, undefined)
  const gone = await app.inject({ url: '/gone', headers: { 'if-none-match': '*' } })
  t.equal(gone.statusCode, 410)
  t.equal(gone.headers.etag, undefined)
  t.equal(gone.json().message, 'gone')
})

test('a filePath that is missing or not a file: the response goes out without validators', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/missing', async (request) => { request.scope.filePath = `${dir}/nope.txt`; return 'still here' })
    app.get('/dir', async (request) => { request.scope.filePath = dir; return 'a directory' })
  })
  t.teardown(() => app.close())
  const missing = await app.inject({ url: '/missing', headers: { 'if-none-match': '*' } })
  t.equal(missing.statusCode, 200)
  t.equal(missing.body, 'still here')
  t.equal(missing.headers.etag, undefined)
  const directory = await app.inject('/dir')
  t.equal(directory.statusCode, 200)
  t.equal(directory.headers['last-modified'], undefined)
})

test('option errors are boot errors with codes', async (t) => {
  for (const [options, code, message] of [
    [{ immutable: true, maxAge: 0 }, 'GATEHOUSE_CACHE_INVALID_OPTIONS', /^cache options: immutable: needs maxAge > 0/],
    [{ maxAge: -1 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cache options\.maxAge/],
    [{ maxAge: 1.5 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /maxAge: expected integer/],
    [{ etag: 'hash' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cache options\.etag/],
    [{ public: 'yes' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cache options\.public/],
    [{ etagAlgorithm: 'md5' }, 'GATEHOUSE_CACHE_INVALID_OPTIONS', /^cache options: etagAlgorithm: only applies with etag: 'content'/],
    [{ etag: 'content', etagAlgorithm: 'crc-none' }, 'GATEHOUSE_CACHE_INVALID_OPTIONS', /^cache options: etagAlgorithm: "crc-none" is neither 'fnv1a' nor a hash node:crypto knows/],
    [{ etag: 'content', etagAlgorithm: '' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cache options\.etagAlgorithm/],
    [{ etag: 'content', etagAlgorithm: 1 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cache options\.etagAlgorithm/],
    [{ weakEtags: 'yes' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cache options\.weakEtags/],
    [{ acceptRanges: 1 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cache options\.acceptRanges/],
    [{ max_age: 10 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /unknown option \(options are camelCase: maxAge\)/]
  ] as const) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(cachePlugin, options as never).ready() }, { code, message }, JSON.stringify(options))
    await app.close()
  }
})

test('config files use snake_case keys', async (t) => {
  const config = recipeFromConfig({ middleware: { cache: { max_age: 120, public: false, immutable: true, etag: 'content', etag_algorithm: 'fnv1a', weak_etags: true, accept_ranges: false } } }, { components: [cachePlugin] })
  t.same(config.middleware?.cache, { maxAge: 120, public: false, immutable: true, etag: 'content', etagAlgorithm: 'fnv1a', weakEtags: true, acceptRanges: false })
  t.throws(() => recipeFromConfig({ middleware: { cache: { max_age: 'soon' } } }, { components: [cachePlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.cache\.max_age: / })
})

test('registered alone with app.register, and the caller\'s options untouched', async (t) => {
  const app = Fastify()
  const options = Object.freeze({ maxAge: 5 })
  await app.register(cachePlugin, options)
  app.get('/s', async (_request, reply) => reply.type('text/plain').send(createReadStream(file)))
  const res = await app.inject('/s')
  t.equal(res.headers['cache-control'], 'public, max-age=5')
  t.equal(res.headers.etag, FILE_ETAG)
  t.equal((await app.inject({ url: '/s', headers: { 'if-none-match': FILE_ETAG } })).statusCode, 304)
  await app.close()
})
