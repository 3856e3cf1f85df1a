import { test } from 'tap'
import { createHash } from 'node:crypto'
import { constantTimeEqual, sha256 } from '@fastify-gatehouse/auth'

test('sha256 is the base64url SHA-256', async (t) => {
  t.equal(sha256('abc'), createHash('sha256').update('abc').digest('base64url'))
  t.equal(sha256('ü'), createHash('sha256').update('ü', 'utf8').digest('base64url'), 'UTF-8')
})

test('constantTimeEqual', async (t) => {
  t.ok(constantTimeEqual('', ''))
  t.ok(constantTimeEqual('same-digest', 'same-digest'))
  t.notOk(constantTimeEqual('same-digest', 'same-digesT'), 'last character differs')
  t.notOk(constantTimeEqual('Same-digest', 'same-digest'), 'first character differs')
  t.notOk(constantTimeEqual('short', 'longer'), 'lengths differ')
})
