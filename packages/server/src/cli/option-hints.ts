// What a usage error says about an option the command does not take: the
// one meant, when it is a near miss (`--tag` for `--tags`), or where a
// secret goes instead of the command line. D-CLI-19.

// Edit distance (insert, delete, substitute, swap two neighbours).
function distance (a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i === 0 ? j : j === 0 ? i : 0))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

/** The option of `known` that `name` most likely meant (a prefix either way, or a typo or two away), or undefined. */
export function closestOption (name: string, known: readonly string[]): string | undefined {
  let best: { option: string, score: number } | undefined
  for (const option of known) {
    const prefix = option.startsWith(name) || name.startsWith(option)
    const score = prefix ? 0.5 : distance(name, option)
    if (score <= (name.length <= 4 ? 1 : 2) && (best === undefined || score < best.score)) best = { option, score }
  }
  return best?.option
}

// Names of options that would carry a secret (`--password`, `--pass`, `--pw`, `--admin-password`, `--token`, `--api-key`).
const SECRET_OPTION = /passw|^pass$|^pw$|pwd|secret|token|credential|(^|-)key$/i

/** How the `users` commands take a password instead. */
export const PASSWORD_INPUT = 'type it at the prompt, or pipe it on stdin (printenv NEW_PASSWORD | gatehouse users add <identity>)'

/** Where the other commands' secrets go instead. */
export const SECRET_INPUT = 'the admin password goes in $GATEHOUSE_ADMIN_PASSWORD, a database URL in $GATEHOUSE_DATABASE_URL (or either in a file named by $GATEHOUSE_ADMIN_PASSWORD_FILE, $GATEHOUSE_DATABASE_URL_FILE), tokens in the config file (!env, !file)'

/**
 * The usage error's text for an unknown option (`rawName` as typed:
 * `--tag`, `-t`; `name` without dashes) of a command taking `known`: one
 * that would carry a secret (`--password`, `--token`) refused with where it
 * goes (`instead`), else the option it most likely meant, else the options
 * the command takes. Its value is never shown.
 */
export function unknownOptionMessage (rawName: string, name: string, known: readonly string[], instead: string): string {
  if (SECRET_OPTION.test(name)) return `${rawName}: a secret is never given on the command line, where shell history and ps show it; ${instead}`
  const meant = closestOption(name, known)
  if (meant !== undefined) return `unknown option ${rawName}: did you mean --${meant}?`
  return `unknown option ${rawName} (this command takes ${known.map((option) => `--${option}`).join(', ')})`
}
