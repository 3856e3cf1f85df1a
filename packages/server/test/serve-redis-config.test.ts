// Bad Redis stores in a config file, in this process through runCli (what
// the bin runs): nothing connects, so no Redis is needed, and no child
// process per case (seconds each on a busy machine).
import { test } from 'tap'
import { gatehouse } from './helpers/cli.js'

test('gatehouse serve: bad Redis stores in the config file are boot errors naming the key', async (t) => {
  const dir = t.testdir({
    'scheme.yaml': "middleware:\n  session:\n    store: { redis: 'http://127.0.0.1:6379' }\n",
    'string.yaml': "middleware:\n  session:\n    store: 'redis://127.0.0.1:6379'\n",
    'extra.yaml': "middleware:\n  session:\n    store: { redis: 'redis://127.0.0.1:6379', db: 2 }\n",
    'login.yaml': "server_app:\n  login:\n    store: { url: 'redis://127.0.0.1:6379' }\n",
    'loginurl.yaml': "server_app:\n  login:\n    store: { redis: 'redis://127.0.0.1:6379/x' }\n"
  })
  // In this process, through runCli (what the bin runs); nothing from this process's environment.
  const run = async (file: string) => await gatehouse(['serve', '--config', file, '--port', '0'], { cwd: dir, env: {}, cleanEnv: true })
  t.match(await run('scheme.yaml'), { code: 1, stderr: /middleware\.session\.store\.redis: unsupported scheme "http:"/ })
  t.match(await run('string.yaml'), { code: 1, stderr: /middleware\.session\.store: expected \{ redis: "redis:\/\/host:port\/db" \} or \{ postgres: / })
  t.match(await run('extra.yaml'), { code: 1, stderr: /middleware\.session\.store\.db: unknown option/ })
  t.match(await run('login.yaml'), { code: 1, stderr: /server_app\.login\.store: expected \{ redis: .* or \{ postgres: / })
  const bad = await run('loginurl.yaml')
  t.match(bad, { code: 1, stderr: /server_app\.login\.store\.redis: the database must be a number/ })
  t.notMatch(bad.stderr, /\n\s+at /, 'no stack trace')
})
