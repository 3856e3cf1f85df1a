import { test } from 'tap'
import { hasCookie } from '../src/has-cookie.js'

test('finds the cookie only as a whole name at the start of a pair', async (t) => {
  const yes = ['session_id=a', 'x=1; session_id=a', 'x=1;session_id=', 'x=1;  \tsession_id=a; y=2']
  const no = [undefined, '', 'session_id', 'xsession_id=a', 'session_idx=a', 'x=session_id=a', 'x=1; a session_id=b', 'session_id =a']
  for (const header of yes) t.ok(hasCookie(header, 'session_id'), String(header))
  for (const header of no) t.notOk(hasCookie(header, 'session_id'), String(header))
})
