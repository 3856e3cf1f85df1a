import { test } from 'tap'
import * as auth from '@fastify-gatehouse/auth'
import { MemoryLockoutStore, afterFailure, lockSeconds, MAX_LOCK_SECONDS } from '@fastify-gatehouse/server'

// The lockout store and policy moved to @fastify-gatehouse/auth (D-LOCKOUT-02 in
// docs/decisions.md); the server's public API still carries them. The store's
// behaviour is tested there (lockout-store.test.ts, with the conformance suite).
test('@fastify-gatehouse/server re-exports the lockout API of @fastify-gatehouse/auth', async (t) => {
  t.equal(MemoryLockoutStore, auth.MemoryLockoutStore)
  t.equal(afterFailure, auth.afterFailure)
  t.equal(lockSeconds, auth.lockSeconds)
  t.equal(MAX_LOCK_SECONDS, 86_400)
})
