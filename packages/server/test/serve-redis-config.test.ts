// Bad Redis stores in a config file, in this process through runCli (what
// the bin runs): nothing connects, so no Redis is needed, and no child
// process per case (seconds each on a busy machine).
import { test } from 'tap'
import { PassThrough } from 'node:stream'
import { runCli } from '@fastify-gatehouse/server'

test('gatehouse serve: bad Redis stores in the config file are boot errors naming the key', async (t) => {
  const dir = t.testdir({
    'scheme.yaml': "middleware:\n  session:\n    store: { redis: 'http://127.0.0.1:6379' }\n",
    'string.yaml': "middleware:\n  session:\n    store: 'redis://127.0.0.1:6379'\n",
    'extra.yaml': "middleware:\n  session:\n    store: { redis: 'redis://127.0.0.1:6379', db: 2 }\n",
    'login.yaml': "server_app:\n  login:\n    store: { url: 'redis://127.0.0.1:6379' }\n",
    'loginurl.yaml': "server_app:\n  login:\n    store: { redis: 'redis://127.0.0.1:6379/x' }\n"
  })
  const run = async (file: string) => {
    let err = ''
    const stdin = new PassThrough()
    stdin.end()
    const code = await runCli(['serve', '--config', file, '--port', '0'], {
      stdin,
      stdout: new PassThrough().resume(),
      stderr: new PassThrough().on('data', (c: Buffer) => { err += c }),
      env: {},
      cwd: dir
    })
    return { code, err }
  }
  t.match(await run('scheme.yaml'), { code: 1, err: /middleware\.session\.store\.redis: unsupported scheme "http:"/ })
  t.match(await run('string.yaml'), { code: 1, err: /middleware\.session\.store: expected \{ redis: / })
  t.match(await run('extra.yaml'), { code: 1, err: /middleware\.session\.store\.db: unknown option/ })
  t.match(await run('login.yaml'), { code: 1, err: /server_app\.login\.store\.redis: is required/ })
  const bad = await run('loginurl.yaml')
  t.match(bad, { code: 1, err: /server_app\.login\.store\.redis: the database must be a number/ })
  t.notMatch(bad.err, /\n\s+at /, 'no stack trace')
})
