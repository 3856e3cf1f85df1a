import { isIP } from 'node:net'

/**
 * The hextets of an IPv6 address (eight numbers), or undefined when it is
 * not one. A zone (`%eth0`) is dropped; a dotted IPv4 tail counts as two.
 */
function hextets (address: string): number[] | undefined {
  const bare = address.split('%', 1)[0]!
  if (isIP(bare) !== 6) return undefined
  const part = (text: string): number[] => {
    if (text === '') return []
    return text.split(':').flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)]
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number]
      return [a * 256 + b, c * 256 + d]
    })
  }
  const [head = '', tail] = bare.split('::')
  const front = part(head)
  if (tail === undefined) return front
  const back = part(tail)
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back]
}

/** The IPv4 address in the last 32 bits of `groups`. */
function embeddedIpv4 (groups: number[]): string {
  return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.')
}

/**
 * The client address a lockout counts by: an IPv4 address as it is; an
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack server
 * sees) and a NAT64 address under the well-known prefix (`64:ff9b::/96`,
 * RFC 6052: an IPv4 client seen through a translator) as its IPv4 address;
 * an address under the local-use NAT64 prefix (`64:ff9b:1::/48`, RFC 8215)
 * as the whole address, one IPv4 client whatever prefix length the
 * translator uses; any other IPv6 address as its /64 network
 * (`2001:db8:0:1::/64`), since one subscriber or host is given a whole /64
 * and picks addresses in it freely (`::1`, `::192.0.2.1` and link-local
 * `fe80::` addresses included); anything else as it is.
 * D-LOCKOUT-11: an IPv6 client is one /64.
 * D-LOCKOUT-14: a NAT64 address is its IPv4 client, not one /64 for all of them.
 */
export function lockoutAddress (address: string): string {
  const groups = hextets(address)
  if (groups === undefined) return address
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return embeddedIpv4(groups)
  if (groups[0] === 0x64 && groups[1] === 0xff9b) {
    if (groups.slice(2, 6).every((g) => g === 0)) return embeddedIpv4(groups)
    // D-LOCKOUT-14: where its IPv4 bits sit depends on the translator's prefix length (RFC 6052 §2.2), so the whole address.
    if (groups[2] === 1) return groups.map((g) => g.toString(16)).join(':')
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`
}

/** The lockout store key of a client address (`address:<lockoutAddress>`), as the server's login and `basicLockout` build it. */
export function addressKey (address: string): string {
  return `address:${lockoutAddress(address)}`
}
