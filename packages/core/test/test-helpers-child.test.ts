// The shared test helpers are code the whole suite leans on: a helper that
// can hang would hang the run (D-TOOLING-17).
import { test } from 'tap'
import { runNode } from '../../../test-helpers/child.js'

test('runNode: a command that ends gives its code and output', async (t) => {
  const run = await runNode(['-e', 'process.stdout.write("out"); process.stderr.write("err"); process.exitCode = 3'])
  t.same(run, { code: 3, stdout: 'out', stderr: 'err' })
})

test('runNode: a command that never ends is killed at the ceiling and the call rejects', async (t) => {
  const started = Date.now()
  // Its output is in the message too, but a busy machine may not have started it by then.
  await t.rejects(runNode(['-e', 'setInterval(() => {}, 1000)'], { ceilingMs: 1500 }), { message: /did not exit within 1500 ms/ })
  t.ok(Date.now() - started >= 1500, 'not before the ceiling')
})
