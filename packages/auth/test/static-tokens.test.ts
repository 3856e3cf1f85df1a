import { test } from 'tap'
import { AuthCore, INVALID_TOKEN } from '@fastify-gatehouse/auth'

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

// Static Basic credentials go through the same table: scanned up to eight,
// looked up by SHA-256 past that.
for (const count of [1, 8, 9, 40]) {
  test(`${count} static Basic user(s): each authenticates as itself; near misses are refused`, async (t) => {
    const basic: Record<string, { password: string, tags: string }> = {}
    for (let i = 0; i < count; i++) basic[`user${i}`] = { password: `pw-${i}-0123456789`, tags: `t${i}` }
    const core = await AuthCore.create({ basic })
    const header = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
    for (let i = 0; i < count; i++) {
      t.same(core.authenticate(header(`user${i}`, `pw-${i}-0123456789`)), { identity: `user${i}`, tags: [`t${i}`], backend: 'basic' }, `user${i}`)
    }
    const last = count - 1
    const nearMisses: Record<string, string> = {
      'last character of the password differs': header(`user${last}`, `pw-${last}-012345678x`),
      'a prefix of the password': header(`user${last}`, `pw-${last}-012345678`),
      'an unknown user': header('nobody', `pw-${last}-0123456789`)
    }
    if (count > 1) nearMisses['another user\'s password'] = header(`user${last}`, 'pw-0-0123456789')
    for (const [what, value] of Object.entries(nearMisses)) {
      t.throws(() => core.authenticate(value), { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', message: 'Invalid user name or password' }, what)
    }
  })
}

test('a token is compared with its full length: repeats and prefixes of it are refused', async (t) => {
  // The compare reads the token repeated out to a power-of-two length; a
  // candidate made of that repetition must not pass.
  const core = await AuthCore.create({ bearer: { short: { token: 'abc' }, exact: { token: 'abcd' } } })
  t.same(core.authenticate('Bearer abc'), { identity: 'short', tags: [], backend: 'bearer' })
  t.same(core.authenticate('Bearer abcd'), { identity: 'exact', tags: [], backend: 'bearer' })
  for (const token of ['abca', 'abcabc', 'ab', 'a', 'abcdabcd', 'abcda', 'abd']) {
    t.throws(() => core.authenticate(`Bearer ${token}`), { statusCode: 401, code: INVALID_TOKEN }, token)
  }
})
