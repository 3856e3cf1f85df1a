import { invalidTag, invalidTagMessage, parseTags } from '@fastify-gatehouse/core'
import { GATEHOUSE_AUTH_INVALID_CONFIG } from './errors.js'

/**
 * Tags given in options (`basic.alice.tags`, `jwt.main.allowedTags`…): a
 * comma-separated string or a list, each tag in the rule grammar's
 * alphabet. Throws `GATEHOUSE_AUTH_INVALID_CONFIG` naming `where`.
 * D-RULES-06.
 */
export function configTags (value: unknown, where: string): string[] {
  let tags: string[]
  try {
    tags = parseTags(value as string | readonly string[] | null | undefined)
  } catch {
    throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, 'must be a comma-separated string or a list of strings')
  }
  const bad = invalidTag(tags)
  if (bad !== undefined) throw new GATEHOUSE_AUTH_INVALID_CONFIG(where, invalidTagMessage(bad))
  return tags
}
