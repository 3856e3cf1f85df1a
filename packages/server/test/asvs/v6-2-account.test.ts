// OWASP ASVS 5.0, V6.2 Password Security: the requirements about changing a
// password (V6.2.2, V6.2.3); the policy's (V6.2.1, V6.2.4–6.2.11) are in v6-2-passwords.test.ts.
import { test } from 'tap'
import { accountServer, injectSignIn, NEW_PASSWORD } from '../helpers/account.js'

type Server = Awaited<ReturnType<typeof accountServer>>
const signsIn = async (server: Server, password: string) => (await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password } })).statusCode === 200

test('ASVS 5.0 V6.2.2: users can change their password (JSON or a form without JavaScript)', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const json = await server.inject({ method: 'POST', url: '/_server/account/password', headers: { cookie }, payload: { current_password: 'alice-pass', new_password: NEW_PASSWORD } })
  t.same(json.json(), { status: 'ok', sessions_ended: 0 })
  t.ok(await signsIn(server, NEW_PASSWORD), 'the new password signs in')
  t.notOk(await signsIn(server, 'alice-pass'), 'the old one no longer does')
  const browser = await injectSignIn(server, 'alice', NEW_PASSWORD)
  const form = await server.inject({
    method: 'POST',
    url: '/_server/account/password',
    headers: { cookie: browser, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: new URLSearchParams({ current_password: NEW_PASSWORD, new_password: 'amber-lantern-7730', new_password_confirm: 'amber-lantern-7730' }).toString()
  })
  t.equal(form.statusCode, 303)
  t.match(form.headers.location, /^\/_server\/account\?done=password-changed&ended=\d+$/)
  t.ok(await signsIn(server, 'amber-lantern-7730'), 'changed by the form')
})

test('ASVS 5.0 V6.2.3: changing the password needs the current and the new one', async (t) => {
  const server = await accountServer({ maxAttempts: 10 })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const change = (payload: object) => server.inject({ method: 'POST', url: '/_server/account/password', headers: { cookie }, payload })
  for (const payload of [{ new_password: NEW_PASSWORD }, { current_password: '', new_password: NEW_PASSWORD }, { current_password: 'alice-pass' }, { current_password: 'alice-pass', new_password: '' }]) {
    const res = await change(payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.equal(res.json().code, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE')
  }
  const wrong = await change({ current_password: 'alice-pass!', new_password: NEW_PASSWORD })
  t.equal(wrong.statusCode, 403, 'a wrong current password')
  t.equal(wrong.json().code, 'GATEHOUSE_SERVER_WRONG_PASSWORD')
  t.ok(await signsIn(server, 'alice-pass'), 'nothing changed')
  t.notOk(await signsIn(server, NEW_PASSWORD))
})
