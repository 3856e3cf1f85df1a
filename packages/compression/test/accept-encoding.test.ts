// RFC 9110 §12.5.3 Accept-Encoding, as the negotiator reads it.
import { test } from 'tap'
import { createNegotiator, MEMO_ENTRIES } from '../src/accept-encoding.js'

const gzipOnly = createNegotiator(['gzip'])
const both = createNegotiator(['br', 'gzip'])

test('no header, or an empty one, means identity', async (t) => {
  t.equal(gzipOnly(undefined), null)
  t.equal(gzipOnly(''), null)
})

test('a listed coding is chosen; case and x-gzip do not matter', async (t) => {
  t.equal(gzipOnly('gzip'), 'gzip')
  t.equal(gzipOnly('GZip'), 'gzip')
  t.equal(gzipOnly('x-gzip'), 'gzip')
  t.equal(gzipOnly('deflate, gzip, br'), 'gzip')
  t.equal(gzipOnly('deflate, br'), null, 'not listed and no *: refused')
  t.equal(gzipOnly('identity'), null)
})

test('q-values are honoured; q=0 refuses', async (t) => {
  t.equal(gzipOnly('gzip;q=0'), null)
  t.equal(gzipOnly('gzip; q=0.000'), null)
  t.equal(gzipOnly('gzip;Q=0.5'), 'gzip')
  t.equal(gzipOnly('gzip;q=0.001'), 'gzip')
  t.equal(gzipOnly('gzip;q=0.5, identity;q=1'), null, 'identity weighted above gzip')
  t.equal(gzipOnly('gzip;q=1, identity;q=0.5'), 'gzip')
  t.equal(gzipOnly('gzip;q=0.5, identity;q=0.5'), 'gzip', 'a tie goes to the coding')
  t.equal(both('gzip;q=0.9, br;q=0.8'), 'gzip', 'weights beat the server order')
  t.equal(both('gzip, br'), 'br', 'equal weights follow the server order')
  t.equal(both('gzip, br;q=0'), 'gzip')
})

test('* stands for every coding not listed, identity included', async (t) => {
  t.equal(gzipOnly('*'), 'gzip')
  t.equal(gzipOnly('*;q=0'), null)
  t.equal(gzipOnly('gzip;q=0, *'), null, 'an explicit gzip;q=0 wins over *')
  t.equal(gzipOnly('br, *;q=0.1'), 'gzip')
  t.equal(gzipOnly('*;q=0.5, identity;q=1'), null)
  t.equal(gzipOnly('gzip;q=0.4, *;q=0.8'), null, 'identity, matched by *, is weighted above gzip')
})

test('malformed members are ignored, never an error', async (t) => {
  t.equal(gzipOnly('gzip;q=2'), null, 'q above 1')
  t.equal(gzipOnly('gzip;q=0.5555'), null, 'four decimals')
  t.equal(gzipOnly('gzip;q'), null)
  t.equal(gzipOnly('gzip;q=abc, br'), null)
  t.equal(gzipOnly('gz ip'), null)
  t.equal(gzipOnly('gzip;q=x, gzip'), 'gzip', 'a later well-formed member counts')
  t.equal(gzipOnly(',,, ;;, gzip ,'), 'gzip')
  t.equal(gzipOnly('gzip;level=9'), 'gzip', 'unknown parameters are ignored')
  t.equal(gzipOnly('\u0000\u00ff'), null)
})

test('answers are remembered without changing them, and the memory is bounded', async (t) => {
  const negotiate = createNegotiator(['gzip'])
  for (let i = 0; i < 1000; i++) t.equal(negotiate(`gzip;q=0.${i % 10 === 0 ? 0 : 5}, x${i}`), i % 10 === 0 ? null : 'gzip')
  t.equal(negotiate('gzip'), 'gzip')
  t.equal(negotiate('gzip'), 'gzip')
  t.equal(negotiate(`gzip, ${'x'.repeat(300)}`), 'gzip', 'long values are answered, not remembered')
  t.notOk(negotiate.memo.has(`gzip, ${'x'.repeat(300)}`))
})

test('a flood of distinct Accept-Encoding values cannot grow the memory past its bound', async (t) => {
  const negotiate = createNegotiator(['gzip'])
  t.equal(negotiate.memo.max, MEMO_ENTRIES)
  const common = 'gzip, deflate, br'
  t.equal(negotiate(common), 'gzip')
  let largest = 0
  let wrong = 0
  for (let i = 0; i < MEMO_ENTRIES * 40; i++) {
    // What an attacker sends: a new value each time, each one short enough to be remembered.
    if (negotiate(`gzip;q=0.5, x-${i}`) !== 'gzip') wrong++
    if (i % 100 === 0 && negotiate(common) !== 'gzip') wrong++
    largest = Math.max(largest, negotiate.memo.size)
  }
  t.equal(wrong, 0, 'every answer right')
  t.equal(largest, MEMO_ENTRIES, 'the memory never held more than its bound')
  t.equal(negotiate.memo.size, MEMO_ENTRIES, 'full, not more')
  t.notOk(negotiate.memo.has('gzip;q=0.5, x-0'), 'the oldest values were dropped')
  t.ok(negotiate.memo.has(`gzip;q=0.5, x-${MEMO_ENTRIES * 40 - 1}`), 'the newest is kept')
  t.equal(negotiate(common), 'gzip', "a browser's value is still answered right")
})
