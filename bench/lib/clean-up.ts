// Leaving nothing behind: a run's databases, servers, files and workers are
// removed once, whether the run ends, fails or is interrupted.

/**
 * `remove` made to run at most once: by the call that answers, or on
 * SIGINT/SIGTERM (then the process exits 130).
 */
export function cleanUpOnce (remove: () => Promise<void>): () => Promise<void> {
  let cleaned: Promise<void> | undefined
  const cleanUp = (): Promise<void> => (cleaned ??= remove())
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { cleanUp().finally(() => process.exit(130)).catch(() => {}) })
  }
  return cleanUp
}
