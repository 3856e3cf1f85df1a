import { test } from 'tap'
import Fastify from 'fastify'
import {
  addVary, hasControlCharacter, isToken, mergeVary, NO_CONTROL_CHARACTERS_PATTERN, pathWithoutQuery, TOKEN_LIST, TOKEN_PATTERN
} from '@fastify-gatehouse/core'

test('isToken: RFC 9110 tchar, nothing else', async (t) => {
  for (const ok of ['GET', 'x-api-key', "!#$%&'*+.^_`|~", 'A1']) t.ok(isToken(ok), ok)
  for (const bad of ['', 'a b', 'a,b', 'a:b', 'é', 'a\r\nb', '"q"', 'a/b', '(x)', 'a\tb']) t.notOk(isToken(bad), JSON.stringify(bad))
  t.ok(new RegExp(TOKEN_PATTERN).test('Cookie-Name'), 'the schema pattern is the same grammar')
  t.notOk(new RegExp(TOKEN_PATTERN).test('a=b'))
})

test('TOKEN_LIST: tokens separated by commas with optional spaces or tabs', async (t) => {
  for (const ok of ['a', 'a,b', 'a , b', 'a,\tb', 'X-Requested-With,content-type']) t.ok(TOKEN_LIST.test(ok), ok)
  for (const bad of ['', ',', 'a,', ',a', 'a,,b', 'a b', 'a;b']) t.notOk(TOKEN_LIST.test(bad), JSON.stringify(bad))
})

test('hasControlCharacter: C0 and DEL, not tab-free printable text', async (t) => {
  for (const bad of ['\x00', 'a\tb', 'a\r\nb', 'x\x1f', '\x7f']) t.ok(hasControlCharacter(bad), JSON.stringify(bad))
  for (const ok of ['', 'plain text', 'ümlaut', '\u0080', '~']) t.notOk(hasControlCharacter(ok), JSON.stringify(ok))
  const schema = new RegExp(NO_CONTROL_CHARACTERS_PATTERN)
  t.ok(schema.test('realm name'))
  t.notOk(schema.test('realm\nname'))
})

test('pathWithoutQuery', async (t) => {
  t.equal(pathWithoutQuery('/a/b?x=1?y'), '/a/b')
  t.equal(pathWithoutQuery('/a/b'), '/a/b')
  t.equal(pathWithoutQuery('?x'), '')
})

test('mergeVary: adds once, case-insensitively, never beside *', async (t) => {
  t.equal(mergeVary(undefined, 'Origin'), 'Origin')
  t.equal(mergeVary('', 'Origin'), 'Origin')
  t.equal(mergeVary('Accept-Encoding', 'Origin'), 'Accept-Encoding, Origin')
  t.equal(mergeVary('accept-encoding, origin', 'Origin'), undefined)
  t.equal(mergeVary(' ORIGIN ', 'Origin'), undefined)
  t.equal(mergeVary('*', 'Origin'), undefined)
  t.equal(mergeVary(['Accept', 'Cookie'], 'Origin'), 'Accept, Cookie, Origin')
  t.equal(mergeVary('Origins', 'Origin'), 'Origins, Origin', 'a longer name is another field')
})

test('addVary on a reply', async (t) => {
  const app = Fastify()
  app.get('/', async (_request, reply) => {
    reply.header('vary', 'Accept')
    addVary(reply, 'Origin')
    addVary(reply, 'origin')
    return 'ok'
  })
  const res = await app.inject('/')
  t.equal(res.statusCode, 200)
  t.equal(res.headers.vary, 'Accept, Origin')
})
