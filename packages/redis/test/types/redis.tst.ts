// The Redis stores' option types: a url or a client, never both.
import { expect, test } from 'tstyche'
import type { LockoutStore } from '@fastify-gatehouse/auth'
import type { SessionStore } from '@fastify-gatehouse/session'
import { RedisLockoutStore, RedisSessionStore, type RedisSessionStoreOptions } from '@fastify-gatehouse/redis'

test('RedisSessionStoreOptions: url or client, and the shared store options', () => {
  expect({ url: 'redis://127.0.0.1:6379', prefix: 'shop:sess:', commandTimeout: 500 }).type.toBeAssignableTo<RedisSessionStoreOptions>()
  expect({ prefix: 'shop:' }).type.not.toBeAssignableTo<RedisSessionStoreOptions>()
  expect({ url: 6379 }).type.not.toBeAssignableTo<RedisSessionStoreOptions>()
})

test('the stores implement the store interfaces', () => {
  expect<RedisSessionStore>().type.toBeAssignableTo<SessionStore>()
  expect<RedisLockoutStore>().type.toBeAssignableTo<LockoutStore>()
})
