import { test } from 'tap'
import { createHash } from 'node:crypto'
import { isThenable, sha256 } from '@fastify-gatehouse/core'

test('sha256 is base64url SHA-256', async (t) => {
  for (const value of ['', 'abc', 'gak_0123456789abcdef_secret', 'ü'.repeat(1000)]) {
    t.equal(sha256(value), createHash('sha256').update(value).digest('base64url'))
  }
  t.equal(sha256('abc'), 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0')
})

test('isThenable', async (t) => {
  t.ok(isThenable(Promise.resolve(1)))
  t.ok(isThenable({ then () {} }))
  const fn = Object.assign(() => {}, { then () {} })
  t.ok(isThenable(fn))
  for (const no of [null, undefined, 1, 'then', {}, { then: 1 }]) t.notOk(isThenable(no), String(no))
})
