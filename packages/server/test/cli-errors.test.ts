// Issue 14: `GATEHOUSE_ADMIN_PASSWORD=short gatehouse serve` escaped the
// CLI's error handling as an uncoded TypeError with a stack. The CLI now
// prints any coded error (GATEHOUSE_*, FST_*, a system error) as one line
// with exit 1; an uncoded error is a bug: its stack, exit 70.
import { test } from 'tap'
import { fileURLToPath } from 'node:url'
import { gatehouse } from './helpers/cli.js'

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
const CONFIG = 'server:\n  host: 127.0.0.1\n'

test('a short $GATEHOUSE_ADMIN_PASSWORD: one coded line naming the variable and the rule, exit 1, the value never shown', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': CONFIG })
  for (const password of ['short', '', '1234567']) {
    const res = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0'], { cwd: dir, env: { GATEHOUSE_ADMIN_PASSWORD: password } })
    t.equal(res.code, 1, JSON.stringify(password))
    t.equal(res.stderr, 'gatehouse: $GATEHOUSE_ADMIN_PASSWORD: The password must be at least 8 characters long. (rule: min-length)\n')
    t.equal(res.stdout, '')
  }
})

test('the same through the built bin: no stack on the terminal', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': CONFIG })
  const res = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0'], { cwd: dir, env: { GATEHOUSE_ADMIN_PASSWORD: 'short' }, bin: true })
  t.equal(res.code, 1)
  t.equal(res.stderr, 'gatehouse: $GATEHOUSE_ADMIN_PASSWORD: The password must be at least 8 characters long. (rule: min-length)\n')
})

test('a coded Fastify error at boot is one line, exit 1', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': CONFIG })
  const res = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0', '--app', fixture('duplicate-route-app.ts')], { cwd: dir })
  t.equal(res.code, 1)
  t.equal(res.stderr, 'gatehouse: Method \'GET\' already declared for route \'/twice\'\n')
})

test('an uncoded error is a bug: printed with its stack, exit 70', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': CONFIG })
  const res = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0', '--app', fixture('buggy-app.ts')], { cwd: dir })
  t.equal(res.code, 70)
  t.match(res.stderr, /^gatehouse: internal error \(a bug in gatehouse; please report it with what follows\)\nTypeError: cannot read properties of undefined \(reading 'x'\)\n\s+at /)
})

test('a system error (the port is taken) is one line, exit 1', async (t) => {
  const { createServer } = await import('node:net')
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => blocker.close())
  const port = String((blocker.address() as { port: number }).port)
  const dir = t.testdir({ 'gatehouse.yaml': CONFIG })
  const res = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', port], { cwd: dir })
  t.equal(res.code, 1)
  t.match(res.stderr, /^gatehouse: listen EADDRINUSE: address already in use 127\.0\.0\.1:\d+\n$/)
})
