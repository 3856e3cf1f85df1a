/**
 * Compares two strings in time that depends only on their lengths (no
 * early exit on content). Used on digests, whose length reveals nothing;
 * secrets whose length should not show go through `SecretTable`.
 * Strings rather than Buffers: a digest as a Buffer costs ~4× more to make.
 * D-AUTH-08.
 */
export function constantTimeEqual (a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
