import { invalidTag, invalidTagMessage, parseTags } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_STORE_INPUT } from '@fastify-gatehouse/auth'

/**
 * The `--tags a,b` flag, checked before anything is asked or written: a tag
 * outside the rule grammar's alphabet fails the command (exit 1, one line
 * naming the tag).
 * D-RULES-06.
 */
export function tagsFlag (value: string | undefined): string[] {
  const tags = parseTags(value)
  const bad = invalidTag(tags)
  if (bad !== undefined) throw new GATEHOUSE_AUTH_STORE_INPUT(`--tags: ${invalidTagMessage(bad)}`)
  return tags
}
