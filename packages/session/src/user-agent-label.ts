// A short, human label of a User-Agent header for "where am I signed in"
// lists: browser and major version, and the platform. Not a parser for
// anything else (no feature detection); an unknown agent shows its first
// product token, cut short. The header is the client's to choose: the label
// is only ever shown to the session's owner and administrators, and keeps
// printable ASCII only, so it is safe in a log line, a JSON body or HTML
// once escaped. D-SESSION-21.

/** The longest label kept (characters). */
export const MAX_AGENT_LABEL = 60

// Order matters: Edge and Opera also say Chrome; Chrome also says Safari.
const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bFirefox\/(\d+)/, 'Firefox'],
  [/\bFxiOS\/(\d+)/, 'Firefox'],
  [/\bCriOS\/(\d+)/, 'Chrome'],
  [/\bHeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/\bChrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
  [/^curl\/(\d+)/, 'curl'],
  [/^Wget\/(\d+)/, 'Wget'],
  [/^node-fetch\b|^undici\b|^node\b/, 'Node.js']
]

const PLATFORMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b|\bX11\b/, 'Linux']
]

/** Printable ASCII only, spaces squeezed, cut to {@link MAX_AGENT_LABEL}. */
function printable (value: string): string {
  return value.replace(/[^\x20-\x7e]+/g, '').replace(/\s+/g, ' ').trim().slice(0, MAX_AGENT_LABEL)
}

/**
 * The label of a User-Agent header: `Firefox 133 on Linux`, `curl 8`,
 * `Chrome 131 on Android`; `unknown` when there is none.
 */
export function userAgentLabel (header: string | undefined): string {
  if (typeof header !== 'string') return 'unknown'
  // Only the start is read: a header of kilobytes costs no more than a short one.
  const agent = header.slice(0, 512)
  if (agent.trim() === '') return 'unknown'
  let browser: string | undefined
  for (const [pattern, name] of BROWSERS) {
    const match = pattern.exec(agent)
    if (match !== null) {
      browser = match[1] === undefined ? name : `${name} ${match[1]}`
      break
    }
  }
  const platform = PLATFORMS.find(([pattern]) => pattern.test(agent))?.[1]
  if (browser === undefined) browser = printable(agent.split(/[\s(]/, 1)[0] ?? '') || 'unknown'
  return printable(platform === undefined ? browser : `${browser} on ${platform}`)
}
