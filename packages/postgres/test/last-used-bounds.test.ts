import t from 'tap'
import { LAST_USED_BATCH, LAST_USED_MAX_PENDING, LastUsed } from '../src/last-used.js'
import { waitUntil } from '../../../test-helpers/wait.js'

t.test('many distinct keys: written in batches, early, before the interval', async (t) => {
  const writes: number[] = []
  const last = new LastUsed(3_600_000, async (ids) => { writes.push(ids.length) })
  const n = LAST_USED_BATCH * 2 + 500
  for (let i = 0; i < n; i++) last.record(`k${i}`, 1_000_000 + i)
  await waitUntil(() => writes.length > 0, { what: 'an early write' })
  await last.stop()
  t.ok(writes.every((size) => size <= LAST_USED_BATCH), `every statement holds at most ${LAST_USED_BATCH} keys (${writes.join(', ')})`)
  t.equal(writes.reduce((a, b) => a + b, 0), n, 'every key written once')
})

t.test('while writes fail, the pending times stay bounded, and are written once the database is back', async (t) => {
  let failing = true
  let written = 0
  const last = new LastUsed(3_600_000, async (ids) => {
    if (failing) throw new Error('database away')
    written += ids.length
  })
  const n = LAST_USED_MAX_PENDING + 5000
  for (let i = 0; i < n; i++) last.record(`k${i}`, 1_000_000 + i * 10)
  await last.flush().catch(() => {})
  t.equal(last.pending('k0'), 1_000_000, 'a time recorded before the failures is kept')
  t.equal(last.pending(`k${n - 1}`), undefined, 'a key first used past the bound is not recorded')
  failing = false
  await last.stop()
  t.equal(written, LAST_USED_MAX_PENDING, 'what was kept is written when the database answers')
})
