import { test } from 'tap'
import { isCompressible } from '../src/compressible.js'
import { varyWithAcceptEncoding } from '../src/vary.js'

test('compressible types: text/*, JSON, JavaScript, XML, SVG and the +json/+xml families', async (t) => {
  for (const type of ['text/plain', 'text/html; charset=utf-8', 'text/css', 'text/javascript', 'TEXT/CSV',
    'application/json', 'application/json; charset=utf-8', 'application/javascript', 'application/x-javascript',
    'application/ecmascript', 'application/xml', 'image/svg+xml', 'application/problem+json', 'application/ld+json',
    'application/atom+xml', 'application/vnd.api+json', ' Application/JSON ;charset=utf-8']) {
    t.ok(isCompressible(type), type)
  }
  for (const type of [undefined, '', 'image/png', 'application/octet-stream', 'application/gzip', 'video/mp4',
    'text/event-stream', 'application/jsonx', 'application/json-seq-not', 42, ['text/plain']]) {
    t.notOk(isCompressible(type), String(type))
  }
})

test('Vary: Accept-Encoding is merged once, case-insensitively', async (t) => {
  t.equal(varyWithAcceptEncoding(undefined), 'Accept-Encoding')
  t.equal(varyWithAcceptEncoding(''), 'Accept-Encoding')
  t.equal(varyWithAcceptEncoding('Origin'), 'Origin, Accept-Encoding')
  t.equal(varyWithAcceptEncoding('Origin, Cookie'), 'Origin, Cookie, Accept-Encoding')
  t.equal(varyWithAcceptEncoding(['Origin', 'Cookie']), 'Origin, Cookie, Accept-Encoding')
  t.equal(varyWithAcceptEncoding('origin, accept-encoding'), undefined)
  t.equal(varyWithAcceptEncoding('Accept-Encoding'), undefined)
  t.equal(varyWithAcceptEncoding('*'), undefined, '* already covers it')
})
