// userAgentLabel: the short label of a User-Agent header that a session's
// owner sees in their list of sessions. The header is the client's to
// choose: whatever it holds, the label is printable ASCII of at most
// MAX_AGENT_LABEL characters, and reading it costs the same for a huge one.
// D-SESSION-21.
import { test } from 'tap'
import { MAX_AGENT_LABEL, userAgentLabel } from '@fastify-gatehouse/session'

const PRINTABLE = /^[\x20-\x7e]*$/

test('common browsers and clients: browser, major version and platform', async (t) => {
  const cases: Array<[string, string]> = [
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.85 Safari/537.36', 'Headless Chrome 131 on Linux'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome 131 on Windows'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70', 'Edge 131 on Windows'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.2903.87', 'Edge 131 on Android'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1', 'Safari 17 on iOS'],
    ['Mozilla/5.0 (iPad; CPU OS 16_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1', 'Safari 16 on iOS'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15', 'Safari 17 on macOS'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133 on Linux'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox 128 on Windows'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15', 'Firefox 133 on iOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1', 'Chrome 131 on iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36', 'Chrome 131 on Android'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome 131 on ChromeOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0', 'Opera 115 on Windows'],
    ['curl/8.5.0', 'curl 8'],
    ['Wget/1.21.4', 'Wget 1'],
    ['node', 'Node.js'],
    ['undici', 'Node.js'],
    ['python-requests/2.32.3', 'python-requests/2.32.3'],
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Mozilla/5.0']
  ]
  for (const [header, label] of cases) t.equal(userAgentLabel(header), label, label)
})

test('no header, or one of spaces only: unknown', async (t) => {
  t.equal(userAgentLabel(undefined), 'unknown')
  t.equal(userAgentLabel(''), 'unknown')
  t.equal(userAgentLabel('   \t '), 'unknown')
  t.equal(userAgentLabel(['Firefox/1'] as unknown as string), 'unknown', 'not a string (a header given twice by a hand-made request)')
})

test('garbage: control bytes, non-ASCII and markup never reach the label; the label is bounded', async (t) => {
  const cases: Array<[string, string]> = [
    ['\u0000\u0001\u0002\u001b', 'unknown'],
    ['\u001b[31mEvil\u001b[0m', '[31mEvil[0m'],
    ['ünïcödé/1 (Linux)', 'ncd/1 on Linux'],
    ['Firefox/128.0\r\nSet-Cookie: x=y', 'Firefox 128'],
    ['<script>alert(1)</script>', '<script>alert'],
    ['\u202eFirefox/1', 'Firefox 1']
  ]
  for (const [header, label] of cases) t.equal(userAgentLabel(header), label, JSON.stringify(header))
  const labels = [
    'x'.repeat(100_000),
    `${'A'.repeat(300)}`,
    `Firefox/${'9'.repeat(200)} (X11; Linux x86_64)`,
    `${'\u00ff'.repeat(1000)}Chrome/1`,
    Array.from({ length: 512 }, (_v, i) => String.fromCharCode(i)).join(''),
    `${' '.repeat(600)}Firefox/133`
  ].map((header) => userAgentLabel(header))
  for (const label of labels) {
    t.ok(label.length > 0 && label.length <= MAX_AGENT_LABEL, `at most ${MAX_AGENT_LABEL} characters: ${label.length}`)
    t.match(label, PRINTABLE)
    t.equal(label, label.trim(), 'no spaces at the ends')
  }
  t.equal(MAX_AGENT_LABEL, 60)
  t.equal(labels[5], 'unknown', 'only the first 512 characters are read: a browser named past them is not')
})

test('a huge header costs what its first 512 characters cost', async (t) => {
  // Not timed: the label of a header is that of its first 512 characters,
  // so the regular expressions never see more.
  const start = 'Mozilla/5.0 (X11; Linux x86_64) '
  t.equal(userAgentLabel(start + 'x'.repeat(1_000_000) + ' Firefox/133.0'), userAgentLabel(start + 'x'.repeat(512)))
  t.equal(userAgentLabel(start + 'Firefox/133.0' + ' '.repeat(1_000_000)), 'Firefox 133 on Linux')
})
