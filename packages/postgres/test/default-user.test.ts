// A URL without a user name: pg sends none unless $PGUSER or $USER is set
// (a container often has neither), while libpq and psql use the
// operating-system user. The stores fill it in the same way.
import t from 'tap'
import { userInfo } from 'node:os'
import { resolvePostgresOptions } from '../src/index.js'

const url = (given: string): string | undefined => resolvePostgresOptions({ url: given }, 'Probe').url

t.test('the operating-system user when the URL, $PGUSER and $USER name none', async (t) => {
  const saved = { PGUSER: process.env.PGUSER, USER: process.env.USER }
  t.teardown(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })
  delete process.env.PGUSER
  delete process.env.USER
  const me = encodeURIComponent(userInfo().username)
  t.equal(url('postgres://127.0.0.1/test'), `postgres://${me}@127.0.0.1/test`)
  t.equal(url('postgresql://:pw@db:6432/app?sslmode=require'), `postgresql://${me}:pw@db:6432/app?sslmode=require`, 'a password and the query kept')
  t.equal(url('postgres://gate@127.0.0.1/test'), 'postgres://gate@127.0.0.1/test', 'a user in the URL wins')
  process.env.USER = 'someone'
  t.equal(url('postgres://127.0.0.1/test'), 'postgres://127.0.0.1/test', '$USER set: left to pg')
  delete process.env.USER
  process.env.PGUSER = 'pguser'
  t.equal(url('postgres://127.0.0.1/test'), 'postgres://127.0.0.1/test', '$PGUSER set: left to pg')
})
