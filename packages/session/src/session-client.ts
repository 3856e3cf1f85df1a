import type { SessionClient } from './session-store.js'
import { userAgentLabel } from './user-agent-label.js'

// The longest address kept: an IPv6 address with a zone (fe80::…%eth0) fits.
const MAX_ADDRESS = 64

/**
 * The client of a request as its session keeps it, for its owner's list.
 * `request.ip` is not always an address: behind a trusted proxy it is the
 * first X-Forwarded-For entry the proxy did not vouch for, text the client
 * chose (proxy-addr does not check it is an IP); and it is undefined once
 * the socket is gone. So printable ASCII, bounded, like the agent label.
 * D-SESSION-21.
 */
export function sessionClient (ip: unknown, userAgent: string | undefined): SessionClient {
  const address = typeof ip === 'string' ? ip.slice(0, 4 * MAX_ADDRESS).replace(/[^\x21-\x7e]+/g, '').slice(0, MAX_ADDRESS) : ''
  return { address, agent: userAgentLabel(userAgent) }
}
