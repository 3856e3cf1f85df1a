import { processWide } from './process-wide.js'

// Cookies that authenticate a request (a session id, a JWT in a cookie) give
// it ambient authority: a page on another site can make the browser send
// them. The component that reads such a cookie declares it here, and the
// csrf component checks every unsafe request carrying one, so neither
// depends on the other (DESIGN §1: components depend on core only).
// Kept per app (its HTTP server, shared by every encapsulated context) and
// process-wide, so two copies of core agree (process-wide.ts says why).
// D-CSRF-09.
const declared = processWide('core.credentialCookies.v1', () => new WeakMap<object, Set<string>>())
// The apps whose credential cookies a component checks (csrf asked for them).
const guarded = processWide('core.credentialCookiesGuarded.v1', () => new WeakSet<object>())

interface HasServer {
  readonly server: object
}

function namesOf (app: HasServer): Set<string> {
  let names = declared.get(app.server)
  if (names === undefined) {
    names = new Set()
    declared.set(app.server, names)
  }
  return names
}

/**
 * Declares that the cookie `name` authenticates requests to `app`: the csrf
 * component then checks unsafe requests carrying it as it checks the
 * session cookie. Call it at registration (a plugin's body).
 */
export function declareCredentialCookie (app: HasServer, name: string): void {
  namesOf(app).add(name)
}

/**
 * The credential cookies declared for `app` so far: a live set, so a
 * component registered before the one that declares (csrf before auth)
 * still sees the declaration at request time.
 */
export function credentialCookies (app: HasServer): ReadonlySet<string> {
  guarded.add(app.server)
  return namesOf(app)
}

/**
 * Whether a component checks the credential cookies of `app` (asked for
 * them with {@link credentialCookies}): a component declaring one can warn
 * at `onReady` when nothing does.
 */
export function credentialCookiesGuarded (app: HasServer): boolean {
  return guarded.has(app.server)
}
