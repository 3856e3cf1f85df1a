// Bad input to `gatehouse serve`, in this process through runCli (what the
// bin runs): a child per case cost ~2.5 s each on an idle machine and
// minutes on a loaded one. serve.test.ts starts the real process (D-TOOLING-18).
import { test } from 'tap'
import { PassThrough } from 'node:stream'
import { runCli } from '@fastify-gatehouse/server'

test('gatehouse serve: bad input', async (t) => {
  const dir = t.testdir({ 'bad.yaml': 'middleware:\n  gzip: true\n', 'typo.yaml': 'server_app:\n  login: { max_atempts: 3 }\n', 'ok.yaml': 'server:\n  host: 127.0.0.1\n', 'wrong.mjs': 'export default 42\n' })
  const run = async (...args: string[]) => {
    let err = ''
    const stdin = new PassThrough()
    stdin.end()
    const code = await runCli(args, {
      stdin,
      stdout: new PassThrough().resume(),
      stderr: new PassThrough().on('data', (c: Buffer) => { err += c }),
      env: {},
      cwd: dir
    })
    return { code, err }
  }
  t.match(await run('serve'), { code: 2, err: /--config is required/ })
  t.match(await run('serve', '--config', 'bad.yaml'), { code: 1, err: /Unknown component "gzip"/ })
  t.match(await run('serve', '--config', 'typo.yaml'), { code: 1, err: /server_app\.login\.max_atempts: unknown option/ })
  t.match(await run('serve', '--config', 'missing.yaml'), { code: 1, err: /Cannot load config file .*missing\.yaml/ })
  t.match(await run('serve', '--config', 'bad.yaml', '--port', 'http'), { code: 2, err: /--port takes 0–65535/ })
  t.match(await run('serve', '--config', 'ok.yaml', '--app', 'missing.mjs', '--port', '0'), { code: 1, err: /gatehouse: cannot load missing\.mjs: Cannot find module/ })
  const wrong = await run('serve', '--config', 'ok.yaml', '--app', 'wrong.mjs', '--port', '0')
  t.match(wrong, { code: 1, err: /wrong\.mjs: the default export must be a RoutedApplication/ })
  t.notMatch(wrong.err, /\n\s+at /, 'no stack trace')
})
