import { invalidTag, invalidTagMessage, parseTags } from '@fastify-gatehouse/core'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'

/**
 * The `--tags a,b` flag, checked before anything is asked or written: a tag
 * outside the rule grammar's alphabet fails the command (exit 1, one line
 * naming the tag).
 * D-RULES-06. D-CODES-03: the server's own code, not auth's.
 */
export function tagsFlag (value: string | undefined): string[] {
  const tags = parseTags(value)
  const bad = invalidTag(tags)
  if (bad !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('--tags', invalidTagMessage(bad))
  return tags
}
