import { test } from 'tap'
import { randomBytes } from 'node:crypto'
import { SCAN_BUDGET, SecretTable } from '../src/secret-table.js'

// Both ways of finding a secret must answer alike: which one runs depends on
// the entries and the candidate's length (D-AUTH-11).
test('scanned or hashed, a lookup answers the same, on both sides of the budget', async (t) => {
  for (const length of [8, 43, SCAN_BUDGET, SCAN_BUDGET + 1, 400]) {
    for (const count of [1, 2, 3, 4, 5, 16, 17]) {
      const secrets = Array.from({ length: count }, () => randomBytes(length).toString('base64url').slice(0, length))
      const tables = [new SecretTable(secrets.map((s, i) => [s, i] as const)), new SecretTable(secrets.map((s, i) => [s, i] as const), Number.POSITIVE_INFINITY), new SecretTable(secrets.map((s, i) => [s, i] as const), 0)]
      for (const table of tables) {
        secrets.forEach((s, i) => { if (table.find(Buffer.from(s).toString()) !== i) t.fail(`${count} × ${length}: entry ${i} not found`) })
        const last = secrets[count - 1]!
        for (const miss of [last.slice(0, -1), `${last}x`, last.slice(0, -1) + (last.endsWith('A') ? 'B' : 'A'), '']) {
          if (table.find(miss) !== undefined) t.fail(`${count} × ${length}: a near miss was found`)
        }
      }
    }
  }
  t.pass('every entry found, no near miss found')
})
