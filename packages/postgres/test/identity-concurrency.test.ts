import t from 'tap'
import { PostgresApiKeyStore, PostgresUserStore } from '../src/index.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { FAST_SCRYPT, ownDatabase } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'

const options = await needPostgres()

// Dozens of parallel writes from two instances on one database: every one
// applied, nothing lost, and a racing add of one identity won exactly once.

t.test('two instances writing at once', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  const settings = { url, poolSize: 4 }
  const keys = [closeLater(await PostgresApiKeyStore.connect(settings)), closeLater(await PostgresApiKeyStore.connect(settings))] as const
  const users = [
    closeLater(await PostgresUserStore.connect({ ...settings, scrypt: FAST_SCRYPT })),
    closeLater(await PostgresUserStore.connect({ ...settings, scrypt: FAST_SCRYPT }))
  ] as const
  const on = <T>(pair: readonly [T, T], i: number): T => pair[i % 2]!

  await t.test('40 parallel issues, then 20 parallel revokes, split across both', async (t) => {
    const issued = await Promise.all(Array.from({ length: 40 }, (_, i) => on(keys, i).issue({ label: `svc-${i}`, tags: `n${i}` })))
    t.equal(new Set(issued.map((i) => i.record.keyId)).size, 40, '40 distinct keys')
    t.equal((await keys[0].list()).length, 40, 'all listed')
    for (const [i, { key, record }] of issued.entries()) t.match(await on(keys, i + 1).verify(key), { label: record.label, tags: [`n${i}`] }, `key ${i} verifies on the other instance`)

    const revoked = issued.filter((_, i) => i % 2 === 0)
    t.same(await Promise.all(revoked.map(({ record }, i) => on(keys, i).revoke(record.keyId))), revoked.map(() => true))
    const listed = new Map((await keys[1].list()).map((r) => [r.keyId, r.enabled]))
    t.ok(issued.every(({ record }, i) => listed.get(record.keyId) === (i % 2 !== 0)), 'exactly the 20 revoked are disabled')
    for (const instance of keys) {
      await waitUntil(async () => {
        const answers = await Promise.all(issued.map(({ key }) => instance.verify(key)))
        return answers.every((answer, i) => (answer === null) === (i % 2 === 0))
      }, { what: 'both instances to agree on the revoked keys' })
    }
    t.pass('both instances refuse exactly the revoked keys')
  })

  await t.test('30 parallel adds, then parallel setPassword, setTags and setEnabled, split across both', async (t) => {
    const names = Array.from({ length: 30 }, (_, i) => `user-${i}`)
    await Promise.all(names.map((name, i) => on(users, i).add(name, { password: `first-${i}` })))
    t.equal((await users[1].list()).length, 30)
    t.same(await Promise.all(names.map((name, i) => on(users, i + 1).setPassword(name, `second-${i}`))), names.map(() => true))
    t.same(await Promise.all(names.map((name, i) => on(users, i).setTags(name, [`t${i}`]))), names.map(() => true))
    t.same(await Promise.all(names.map((name, i) => on(users, i + 1).setEnabled(name, i % 3 !== 0))), names.map(() => true))
    for (const [i, name] of names.entries()) {
      const verified = await on(users, i).verify(name, `second-${i}`)
      if (i % 3 === 0) t.equal(verified, null, `${name} disabled`)
      else t.match(verified, { identity: name, tags: [`t${i}`] }, `${name}: the second password and its tags`)
      t.equal(await on(users, i).verify(name, `first-${i}`), null, `${name}: not the first password`)
    }
    for (const instance of users) {
      await waitUntil(async () => {
        const standings = await Promise.all(names.map((name) => instance.standing(name)))
        return standings.every((s, i) => i % 3 === 0 ? s === null : s?.tags[0] === `t${i}`)
      }, { what: 'both instances\' standings to agree' })
    }
    t.pass('both instances give every standing as last written')
  })

  await t.test('24 parallel adds of one identity from both instances: exactly one wins', async (t) => {
    const results = await Promise.allSettled(Array.from({ length: 24 }, (_, i) => on(users, i).add('contested', { password: `pw-${i}` })))
    const won = results.flatMap((r, i) => r.status === 'fulfilled' ? [i] : [])
    t.equal(won.length, 1, 'one add succeeded')
    for (const r of results) if (r.status === 'rejected') t.match(r.reason, { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: 'user contested already exists' })
    t.ok(await users[1].verify('contested', `pw-${won[0]}`), 'the winner\'s password is the one stored')
  })

  await t.test('parallel deletes and re-adds of one identity: both standings agree with the row left', async (t) => {
    await users[0].add('flip', { password: 'pw' })
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => i % 2 === 0 ? on(users, i).delete('flip') : on(users, i).add('flip', { password: 'pw' })))
    t.ok(results.every((r) => r.status === 'fulfilled' || (r.reason as { code?: string }).code === 'GATEHOUSE_AUTH_STORE_INPUT'), 'only "already exists" errors')
    const row = await users[0].get('flip')
    await waitUntil(async () => {
      const [a, b] = await Promise.all(users.map((u) => u.standing('flip')))
      return (a === null) === (row === null) && (b === null) === (row === null)
    }, { what: 'both standings to match the row' })
    t.pass(`the row ${row === null ? 'is gone' : 'is there'}, and both instances say so`)
  })
})
