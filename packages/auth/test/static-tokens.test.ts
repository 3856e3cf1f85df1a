import { test } from 'tap'
import { AuthCore, INVALID_TOKEN } from '@gatehouse/auth'

// Static tokens are compared by a constant-time scan while there are at most
// eight of them, and looked up by SHA-256 past that: both modes must give the
// same answers, including for near misses.
function entries (count: number): Record<string, { token: string, tags: string }> {
  const out: Record<string, { token: string, tags: string }> = {}
  for (let i = 0; i < count; i++) out[`svc${i}`] = { token: `token-${String(i).padStart(2, '0')}-0123456789abcdefghijklmnop`, tags: `t${i}` }
  return out
}

for (const count of [1, 8, 9, 40]) {
  test(`${count} static token(s): each authenticates as its own entry; near misses are refused`, async (t) => {
    const core = await AuthCore.create({ bearer: entries(count) })
    for (let i = 0; i < count; i++) {
      const avatar = core.authenticate(`Bearer token-${String(i).padStart(2, '0')}-0123456789abcdefghijklmnop`)
      t.same(avatar, { identity: `svc${i}`, tags: [`t${i}`], backend: 'bearer' }, `svc${i}`)
    }
    const last = `token-${String(count - 1).padStart(2, '0')}-0123456789abcdefghijklmnop`
    const nearMisses = {
      'last character differs': last.slice(0, -1) + 'q',
      'first character differs': 'T' + last.slice(1),
      'a prefix': last.slice(0, -1),
      'one character longer': last + 'p',
      'an unknown token of another length': 'x'
    }
    for (const [what, token] of Object.entries(nearMisses)) {
      t.throws(() => core.authenticate(`Bearer ${token}`), { statusCode: 401, code: INVALID_TOKEN, message: 'The token is not valid' }, what)
    }
  })
}

test('a token configured twice is a boot error in both modes', async (t) => {
  for (const count of [2, 12]) {
    const bearer = entries(count)
    bearer.dup = { token: bearer.svc0!.token, tags: 'x' }
    await t.rejects(AuthCore.create({ bearer }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'bearer.dup: the same token is configured twice' }, `${count} tokens`)
  }
})
