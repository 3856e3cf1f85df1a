import { test } from 'tap'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { basicHeader, build } from './helpers/build.js'

// Real sockets and dozens of requests at once: the cache, the store's
// standing and the verifications interleave as they do in production.
test('parallel requests with right and wrong passwords while the password changes', async (t) => {
  const store = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await store.add('alice', { password: 'old-password-1', tags: 'admin' })
  const app = await build({ basic: { users: store }, basicConcurrency: 1000 })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const get = async (password: string): Promise<number> =>
    (await fetch(`http://127.0.0.1:${port}/me`, { headers: { authorization: basicHeader('alice', password) } })).status

  const wave = async (passwords: string[]): Promise<Map<string, number[]>> => {
    const statuses = await Promise.all(passwords.map(async (p) => [p, await get(p)] as const))
    const by = new Map<string, number[]>()
    for (const [p, s] of statuses) by.set(p, [...(by.get(p) ?? []), s])
    return by
  }
  const mix = (n: number, ...passwords: string[]): string[] => Array.from({ length: n }, (_, i) => passwords[i % passwords.length]!)

  const before = await wave(mix(48, 'old-password-1', 'wrong-1', 'old-password-1', 'wrong-2'))
  t.same([...new Set(before.get('old-password-1'))], [200], 'the right password, cached or not, passes')
  t.same([...new Set([...before.get('wrong-1')!, ...before.get('wrong-2')!])], [401], 'a wrong one never does')

  // The change lands in the middle of a wave.
  const during = wave(mix(60, 'old-password-1', 'new-password-2', 'wrong-3'))
  const changed = store.setPassword('alice', 'new-password-2')
  const results = await during
  await changed
  t.ok(results.get('wrong-3')!.every((s) => s === 401), 'wrong passwords are refused throughout')
  t.ok([...results.values()].flat().every((s) => s === 200 || s === 401), 'never a 500 or a 503 while the user changes')

  const after = await wave(mix(48, 'old-password-1', 'new-password-2'))
  t.same([...new Set(after.get('old-password-1'))], [401], 'once the change is made, the old password is refused, cached or not')
  t.same([...new Set(after.get('new-password-2'))], [200], 'and the new one passes')

  await store.setEnabled('alice', false)
  const disabled = await wave(mix(32, 'new-password-2'))
  t.same([...new Set(disabled.get('new-password-2'))], [401], 'disabled: every parallel request is refused')
})
