// Everything Gatehouse keeps once per process instead of once per copy of a
// package, in one list. Two copies of a Gatehouse package can be loaded in
// one process (two versions side by side, or one deduplicated differently
// under two dependents); each has its own classes and module state. Where a
// value made by one copy must be recognised by the other, it lives here:
//
// - state: a WeakMap, WeakSet or Set on `globalThis` under a registered
//   symbol, created by the first copy that asks (`processWide`);
// - brands: the mark that makes `instanceof` hold for instances of another
//   copy's class (`brandClass`);
// - keys: registered symbols put on objects that both copies see (a route
//   config, a Fastify instance), declared where they are used.
//
// Every name is listed below with where it is used and why it must be one
// per process; `processWide` and `brandClass` take no other name, and
// packages/core/test/process-wide.test.ts fails on `globalThis` or
// `Symbol.for` anywhere else in packages/*/src, and on an entry no longer
// used where it says. The names end in a format version: a copy that changes
// what an entry holds uses a new name. D-CORE-05, D-CORE-13, D-CORE-16 (the route rules: one table, two keys).

/** One process-wide name: what it is, the file that uses it, and why it must be shared by every copy. */
export interface ProcessWideEntry {
  readonly kind: 'state' | 'brand' | 'key'
  readonly at: string
  readonly why: string
}

/** Every process-wide name Gatehouse uses, by name (`fastify-gatehouse.<name>` is its registered symbol). */
export const PROCESS_WIDE = Object.freeze({
  // State, through processWide().
  'core.validatedOptions.v1': {
    kind: 'state',
    at: 'packages/core/src/validated-options.ts',
    why: 'Options are checked against their schema once (D-CHAIN-12): a chain or config loader of one copy checks them, and a component made by another copy must see that they were, and against which schema, instead of checking them again.'
  },
  'core.credentialCookies.v1': {
    kind: 'state',
    at: 'packages/core/src/credential-cookies.ts',
    why: 'The cookies that authenticate requests to an app, declared by the component that reads one (auth\'s JWT cookie); the csrf component checks unsafe requests carrying them (D-CSRF-09). A csrf of one copy must see what an auth of the other declared, or a cross-site request carrying that cookie goes unchecked.'
  },
  'core.credentialCookiesGuarded.v1': {
    kind: 'state',
    at: 'packages/core/src/credential-cookies.ts',
    why: 'The apps whose credential cookies some csrf component checks: an auth of one copy warns at onReady when none does, and must not warn because the csrf that does is of another copy.'
  },
  'core.emittedWarnings.v1': {
    kind: 'state',
    at: 'packages/core/src/boot-warning.ts',
    why: 'A boot warning goes to the process once (D-LOGGING-11): two copies must not say the same thing twice.'
  },
  'core.routeTables.v1': {
    kind: 'state',
    at: 'packages/core/src/route-table.ts',
    why: 'The route table of each server: every route declared since trackRouteRules or the route-rules plugin started it, checked at ready() and listed by routeRules() (D-RULES-16). trackRouteRules of one copy and the chain of the other must fill and check one table, or a rule the other copy compiled is reported unenforced, and cors of either copy reads its routes.'
  },
  'cors.seenRoutes.v1': {
    kind: 'state',
    at: 'packages/cors/src/route-options.ts',
    why: 'The routes a cors component\'s onRoute hook saw: a config.cors no cors component saw is a boot error (D-CORS-11), and a route seen by a cors of one copy must not be reported by the check of a cors of the other.'
  },
  'server.declaredRoutes.v1': {
    kind: 'state',
    at: 'packages/server/src/app-server/routed-application.ts',
    why: 'The routes `@route` collects per RoutedApplication: the decorator and the class that registers the routes may come from two copies of the server package, and the routes must not be lost.'
  },
  // Brands, through brandClass(): `instanceof` across copies (D-CORE-05).
  'core.Avatar.v1': {
    kind: 'brand',
    at: 'packages/core/src/avatar.ts',
    why: 'An Avatar made by one copy\'s auth is the caller for the other copy\'s session, route rules and your handlers.'
  },
  'core.HttpError.v1': {
    kind: 'brand',
    at: 'packages/core/src/http-error.ts',
    why: 'The errors component of one copy answers an HttpError of the other with its status and headers (a 401\'s WWW-Authenticate).'
  },
  'core.Redirect.v1': {
    kind: 'brand',
    at: 'packages/core/src/http-error.ts',
    why: 'The errors component of one copy answers a Redirect of the other as a redirect.'
  },
  'core.ReauthenticateError.v1': {
    kind: 'brand',
    at: 'packages/core/src/fresh.ts',
    why: 'The errors component of one copy answers a ReauthenticateError of the other (a route whose sign-in is too old) with its maxAge.'
  },
  'server.RoutedApplication.v1': {
    kind: 'brand',
    at: 'packages/server/src/app-server/routed-application.ts',
    why: '`gatehouse serve --app` of one copy accepts a RoutedApplication of the other.'
  },
  // Keys: registered symbols put on shared objects, declared where used.
  'core.defaultAuthRule.v1': {
    kind: 'key',
    at: 'packages/core/src/default-auth-rule.ts',
    why: 'A scope\'s default rule, on its Fastify instance (D-RULES-13): set by setDefaultAuthRule of one copy, read when the other copy compiles a route.'
  },
  'core.routeRecord.v1': {
    kind: 'key',
    at: 'packages/core/src/route-record.ts',
    why: 'A route\'s one record (its rule, fresh, check and challenges; D-RULES-15), on its config: written by the route-rules plugin of one copy, read by the route table\'s check of the other and by auth\'s routeNeedsCaller, which may be of either copy.'
  },
  'core.routeChallenges.v1': {
    kind: 'key',
    at: 'packages/core/src/route-challenges.ts',
    why: 'What the authentication component of a scope accepts, on its Fastify instance (declareRouteChallenges, D-RULES-17): declared by an auth of one copy, read when the route-rules plugin of the other compiles a route of the scope.'
  }
} as const satisfies Record<string, ProcessWideEntry>)

/** A name listed in {@link PROCESS_WIDE}. */
export type ProcessWideName = keyof typeof PROCESS_WIDE
type NameOf<Kind extends ProcessWideEntry['kind']> = { [N in ProcessWideName]: (typeof PROCESS_WIDE)[N]['kind'] extends Kind ? N : never }[ProcessWideName]
/** A name of process-wide state. */
export type ProcessWideStateName = NameOf<'state'>
/** A name of a class brand. */
export type ProcessWideBrandName = NameOf<'brand'>

function registeredSymbol (name: string, kind: ProcessWideEntry['kind']): symbol {
  const entry = (PROCESS_WIDE as Record<string, ProcessWideEntry | undefined>)[name]
  if (entry?.kind !== kind) {
    throw new TypeError(`"${name}" is not a process-wide ${kind} name: list it in PROCESS_WIDE (packages/core/src/process-wide.ts) with where it is used and why`)
  }
  return Symbol.for(`fastify-gatehouse.${name}`)
}

/** The one value of `name` in this process, created by the first copy that asks. */
export function processWide<T> (name: ProcessWideStateName, create: () => T): T {
  const key = registeredSymbol(name, 'state')
  const store = globalThis as unknown as Record<symbol, T | undefined>
  store[key] ??= create()
  return store[key]
}

/**
 * Makes `value instanceof target` true for instances of `target` made by any
 * copy of this package (they carry the brand `fastify-gatehouse.<name>`).
 * Subclasses keep the ordinary `instanceof`.
 */
export function brandClass (target: abstract new (...args: any[]) => unknown, name: ProcessWideBrandName): void {
  const brand = registeredSymbol(name, 'brand')
  Object.defineProperty(target.prototype, brand, { value: true })
  Object.defineProperty(target, Symbol.hasInstance, {
    value: function hasInstance (this: unknown, value: unknown): boolean {
      if (this !== target) return Function.prototype[Symbol.hasInstance].call(this, value)
      return (typeof value === 'object' || typeof value === 'function') && value !== null &&
        (value as Record<symbol, unknown>)[brand] === true
    }
  })
}
