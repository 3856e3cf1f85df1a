// A usage error says what to do: the option meant (`--tag` → `--tags`),
// how a password is given when one is typed on the command line (never
// echoing it), what `--expires` accepts. Exit 2, the usage after the
// message. D-CLI-19, D-CLI-20, D-CLI-21.
import { test } from 'tap'
import { gatehouse } from './helpers/cli.js'

const PASSWORD = 'hunter2-Correct'
const PASSWORD_INPUT = 'type it at the prompt, or pipe it on stdin (printenv NEW_PASSWORD | gatehouse users add <identity>)'
const EXPIRES = '--expires takes a time from now, a whole number and one of s, m, h, d, w (30d, 12h, 90m, 3600s, 2w), or an ISO date (2027-01-31, 2027-01-31T12:00:00Z)'

test('each usage error: exit 2, one line saying what to do, then the usage', async (t) => {
  const dir = t.testdir({})
  const cases: Array<[string[], string]> = [
    [['users', 'add', 'bob', '--tag', 'ops'], 'unknown option --tag: did you mean --tags?'],
    [['keys', 'issue', '--label', 'ci', '--tag', 'ops'], 'unknown option --tag: did you mean --tags?'],
    [['keys', 'issue', '--lable', 'ci'], 'unknown option --lable: did you mean --label?'],
    [['users', 'list', '--jsno'], 'unknown option --jsno: did you mean --json?'],
    [['users', 'list', '--conf', 'g.yaml'], 'unknown option --conf: did you mean --config?'],
    [['migrate', 'up', '--databse', 'x'], 'unknown option --databse: did you mean --database?'],
    [['serve', '--colour'], 'unknown option --colour (this command takes --config, --app, --host, --port, --database, --migrate)'],
    [['users', 'add', 'bob', '--password', PASSWORD], `--password: a secret is never given on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`],
    [['users', 'passwd', 'bob', `--password=${PASSWORD}`], `--password: a secret is never given on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`],
    [['users', 'add', 'bob', '--pw', PASSWORD], `--pw: a secret is never given on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`],
    [['users', 'add', 'bob', PASSWORD], `users add takes one identity, and never a password on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`],
    [['users', 'passwd', 'bob', PASSWORD], `users passwd takes one identity, and never a password on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`],
    [['users', 'hash', PASSWORD], `users hash takes no argument, and never a password on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`],
    [['serve', '--admin-password', PASSWORD], '--admin-password: a secret is never given on the command line, where shell history and ps show it; the admin password goes in $GATEHOUSE_ADMIN_PASSWORD, a database URL in $GATEHOUSE_DATABASE_URL (or either in a file named by $GATEHOUSE_ADMIN_PASSWORD_FILE, $GATEHOUSE_DATABASE_URL_FILE), tokens in the config file (!env, !file)'],
    [['keys', 'issue', '--label', 'ci', '--expires', '-5d'], `${EXPIRES}, not "-5d" (a key cannot expire in the past)`],
    [['keys', 'issue', '--label', 'ci', '--expires=-5d'], `${EXPIRES}, not "-5d" (a key cannot expire in the past)`],
    [['keys', 'issue', '--label', 'ci', '--expires', '5days'], `${EXPIRES}, not "5days"`],
    [['keys', 'issue', '--label', 'ci', '--expires'], '--expires needs a value: --expires <value> (--expires=<value> for one starting with --)'],
    [['keys', 'issue', '--label', '--json'], '--label needs a value: --label <value> (--label=<value> for one starting with --)'],
    [['keys', 'list', '--json=yes'], '--json takes no value: give --json alone']
  ]
  for (const [args, message] of cases) {
    const run = await gatehouse(args, { cwd: dir, env: {}, cleanEnv: true, stdin: `${PASSWORD}\n` })
    const what = args.join(' ')
    t.equal(run.code, 2, what)
    t.equal(run.stderr.split('\n')[0], `gatehouse: ${message}`, what)
    t.match(run.stderr, /\n\nUsage:\n/, `${what}: the usage follows`)
    t.notOk(run.stdout.includes(PASSWORD) || run.stderr.includes(PASSWORD), `${what}: the password is never echoed`)
  }
})

test('a value with one dash is the option\'s value, and the words after it keep their places', async (t) => {
  const run = await gatehouse(['keys', 'issue', '--expires', '-5d', '--label', 'ci', 'stray'], { cwd: t.testdir({}), env: {}, cleanEnv: true })
  t.equal(run.code, 2)
  t.equal(run.stderr.split('\n')[0], 'gatehouse: unexpected argument 7 "stray"')
})

test('through the built bin: a password typed as an option is on neither stream', async (t) => {
  const run = await gatehouse(['users', 'add', 'bob', '--password', PASSWORD], { bin: true, cleanEnv: true, env: {}, cwd: t.testdir({}) })
  t.equal(run.code, 2)
  t.match(run.stderr, /^gatehouse: --password: a secret is never given on the command line/)
  t.notOk((run.stdout + run.stderr).includes(PASSWORD))
})
