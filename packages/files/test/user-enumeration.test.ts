import { test } from 'tap'
import { join } from 'node:path'
import { FileUserStore } from '@fastify-gatehouse/files'
import { check, COSTLY } from '../../../test-helpers/conformance/user-timing.js'

// Moved from auth's user-enumeration test with the store (issue 26).
test('FileUserStore: unknown and disabled users cost a hash', async (t) => {
  await check(t, await FileUserStore.open(join(t.testdir({}), 'users.json'), { scrypt: COSTLY }))
})
