/** What the demo's banner knows about how to get in. */
export interface AccessInput {
  /** The demo's base URL, without a trailing slash. */
  url: string
  /** The admin password generated on this (first) start. */
  generatedAdminPassword?: string | undefined
  /** The admin password came from $GATEHOUSE_ADMIN_PASSWORD. */
  adminPasswordFromEnv: boolean
  /** The API key issued on this (first) start. */
  apiKey?: string | undefined
  /**
   * Where the demo keeps its users and keys: the data folder, or PostgreSQL
   * (`url` when it holds no password; else the commands read $GATEHOUSE_DATABASE_URL).
   */
  store: { dataDir: string } | { url?: string | undefined, schema?: string | undefined }
}

// How a clone runs the CLI (the root script; -s keeps pnpm's lines off stdout).
const CLI = 'npx -y pnpm@10.34.9 -s gatehouse'

/** `value` quoted for a POSIX shell. */
function shellQuote (value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`
}

/**
 * The banner lines that say how to get in: the secrets of a first start
 * (shown once) with a curl line for the admin API that works as printed;
 * on a later start, no secret, and the commands that give a new password
 * or key instead. D-SERVER-50.
 */
export function accessLines (input: AccessInput): string[] {
  const { url, generatedAdminPassword, adminPasswordFromEnv, apiKey, store } = input
  const storeFlags = 'dataDir' in store
    ? `--store ${shellQuote(store.dataDir)}`
    : `--database ${store.url === undefined ? '"$GATEHOUSE_DATABASE_URL"' : shellQuote(store.url)}${store.schema === undefined ? '' : ` --schema ${shellQuote(store.schema)}`}`
  const adminApi = `${url}/_server/users`
  const lines: string[] = []
  if (generatedAdminPassword !== undefined) {
    lines.push(`  admin password (shown once; set GATEHOUSE_ADMIN_PASSWORD to choose your own): ${generatedAdminPassword}`)
    lines.push(`  admin API: curl -u ${shellQuote(`admin:${generatedAdminPassword}`)} ${adminApi}`)
  } else if (adminPasswordFromEnv) {
    lines.push(`  admin API: curl -u "admin:$GATEHOUSE_ADMIN_PASSWORD" ${adminApi}`)
  } else {
    lines.push('  admin password: shown on the first start only. Lost it? Start again with GATEHOUSE_ADMIN_PASSWORD=<new password>')
    lines.push(`    (it becomes the admin's), or set it with: ${CLI} users passwd admin ${storeFlags}`)
    lines.push(`  admin API: curl -u 'admin:<the admin password>' ${adminApi}`)
  }
  if (apiKey !== undefined) {
    lines.push(`  API key (shown once): ${apiKey}`)
    lines.push(`  try:       curl -H 'Authorization: Bearer ${apiKey}' ${url}/admin`)
  } else {
    lines.push(`  API keys: shown when issued only; a new one: ${CLI} keys issue --label me --tags admin ${storeFlags}`)
  }
  return lines
}
