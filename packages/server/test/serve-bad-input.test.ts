// Bad input to `gatehouse serve`, in this process through runCli (what the
// bin runs): a child per case cost ~2.5 s each on an idle machine and
// minutes on a loaded one. serve.test.ts starts the real process (D-TOOLING-18).
import { test } from 'tap'
import { gatehouse } from './helpers/cli.js'

test('gatehouse serve: bad input', async (t) => {
  const dir = t.testdir({ 'bad.yaml': 'middleware:\n  gzip: true\n', 'typo.yaml': 'server_app:\n  login: { max_atempts: 3 }\n', 'huge.yaml': 'server_app:\n  login: { max_attempts: 2147483648 }\n', 'ok.yaml': 'server:\n  host: 127.0.0.1\n', 'wrong.mjs': 'export default 42\n' })
  // In this process, through runCli (what the bin runs); nothing from this process's environment.
  const run = async (...args: string[]) => await gatehouse(args, { cwd: dir, env: {}, cleanEnv: true })
  t.match(await run('serve'), { code: 2, stderr: /give --config <file>, or a database \(--database <url> or \$GATEHOUSE_DATABASE_URL\)/ })
  t.match(await run('serve', '--config', 'bad.yaml'), { code: 1, stderr: /Unknown component "gzip"/ })
  t.match(await run('serve', '--config', 'typo.yaml'), { code: 1, stderr: /server_app\.login\.max_atempts: unknown option/ })
  t.match(await run('serve', '--config', 'huge.yaml', '--port', '0'), { code: 1, stderr: /^gatehouse: [^\n]*max_attempts: expected integer to be less or equal to 1000000\n$/ })
  t.match(await run('serve', '--config', 'missing.yaml'), { code: 1, stderr: /Cannot load config file .*missing\.yaml/ })
  t.match(await run('serve', '--config', 'bad.yaml', '--port', 'http'), { code: 2, stderr: /--port takes 0–65535/ })
  t.match(await run('serve', '--config', 'ok.yaml', '--app', 'missing.mjs', '--port', '0'), { code: 1, stderr: /gatehouse: cannot load missing\.mjs: Cannot find module/ })
  const wrong = await run('serve', '--config', 'ok.yaml', '--app', 'wrong.mjs', '--port', '0')
  t.match(wrong, { code: 1, stderr: /wrong\.mjs: the default export must be a RoutedApplication/ })
  t.notMatch(wrong.stderr, /\n\s+at /, 'no stack trace')
})
