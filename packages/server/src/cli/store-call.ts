import { GATEHOUSE_AUTH_CALLBACK_FAILED, safeFacts } from '@fastify-gatehouse/auth'

// Gatehouse's own stores throw fixed sentences under these codes.
const OWN_CODE = /^GATEHOUSE_[A-Z0-9_]+$/

/**
 * Calls the user store with a password: what it throws is printed by its
 * safe facts only (`UserStore.setPassword threw Error ECONNRESET`, exit 1),
 * never its message or stack, which may quote the password (D-AUTH-63); an
 * error of Gatehouse's own code keeps its sentence. No time limit: the
 * operator at the terminal is there to interrupt it. D-SERVER-57.
 */
export async function passwordStoreCall<T> (call: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code
    if (err instanceof Error && typeof code === 'string' && OWN_CODE.test(code)) throw err
    throw new GATEHOUSE_AUTH_CALLBACK_FAILED(call, `threw ${safeFacts(err)}`)
  }
}
