import type { Test } from 'tap'
import type { UserStore } from '@fastify-gatehouse/auth'

// Unknown identities must cost a password hash, like known ones, so that the
// answer's timing does not tell who exists. With a hash at these parameters a
// check takes milliseconds; without one, microseconds. The floor (2 ms) sits
// far from both, so parallel test load cannot blur which happened.
export const COSTLY = { N: 2 ** 14, r: 8, p: 1 }
export const FLOOR_MS = 2

async function elapsed (fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

export async function median (fn: () => Promise<unknown>): Promise<number> {
  const runs: number[] = []
  for (let i = 0; i < 5; i++) runs.push(await elapsed(fn))
  return runs.sort((a, b) => a - b)[2]!
}

export async function check (t: Test, store: UserStore): Promise<void> {
  await store.add('known', { password: 'right' })
  await store.add('off', { password: 'right' })
  await store.setEnabled('off', false)
  await store.verify('warm', 'up')
  const known = await median(() => store.verify('known', 'wrong'))
  const unknown = await median(() => store.verify('nobody', 'wrong'))
  const disabled = await median(() => store.verify('off', 'right'))
  t.ok(known > FLOOR_MS, `a known user with a wrong password costs a hash (${known.toFixed(1)} ms)`)
  t.ok(unknown > FLOOR_MS, `an unknown user costs a hash too (${unknown.toFixed(1)} ms)`)
  t.ok(disabled > FLOOR_MS, `a disabled user costs a hash too (${disabled.toFixed(1)} ms)`)
}
