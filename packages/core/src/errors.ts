import createError from '@fastify/error'

// Boot-time misconfiguration: TypeError subclasses with stable codes, so a
// caller can tell them apart without matching on messages. Every code is
// listed in docs/error-codes.md.

/** Two different components with one name are in one components list (e.g. from two copies of a package). */
export const GATEHOUSE_CORE_DUPLICATE_COMPONENT = createError<[string]>(
  'GATEHOUSE_CORE_DUPLICATE_COMPONENT',
  'Two different components are named "%s" in one components list; keep one (two copies of its package are installed, or a component of your own reuses the name)', 500, TypeError)

/** A recipe names a component that is not in the components list it is resolved against. */
export const GATEHOUSE_CORE_UNKNOWN_COMPONENT = createError<[string, string]>(
  'GATEHOUSE_CORE_UNKNOWN_COMPONENT',
  'Unknown component "%s" (known: %s); a recipe names only the components passed to it: add its plugin to { components: [...] } of middlewareChain, loadRecipe or AppServer, or use fastify-gatehouse, whose middlewareChain and loadRecipe know every Gatehouse component', 500, TypeError)

/**
 * `middlewareChain` of @fastify-gatehouse/core was called without the list
 * of components its recipe may name; the message names the recipe's components.
 */
export const GATEHOUSE_CORE_NO_COMPONENTS = createError<[string]>(
  'GATEHOUSE_CORE_NO_COMPONENTS',
  'middlewareChain needs the components its recipe may name%s: pass them, e.g. middlewareChain(app, recipe, { components: [errorsPlugin, corsPlugin] }), or import middlewareChain from fastify-gatehouse, which passes every Gatehouse component', 500, TypeError)

/** Options (of a component or a recipe section) fail their schema; the message starts with the path. */
export const GATEHOUSE_CORE_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_CORE_INVALID_OPTIONS', '%s: %s', 500, TypeError)

/** A component definition itself is malformed (bad name or order). */
export const GATEHOUSE_CORE_INVALID_COMPONENT = createError<[string]>(
  'GATEHOUSE_CORE_INVALID_COMPONENT', 'Invalid component definition: %s', 500, TypeError)

/** A config file cannot be read or parsed; the message names the file. */
export const GATEHOUSE_CORE_CONFIG_FILE = createError<[string, string]>(
  'GATEHOUSE_CORE_CONFIG_FILE', 'Cannot load config file %s: %s', 500, Error)

/**
 * A value a config file takes from the environment or a file (`!env NAME`,
 * `!file PATH`, `{ "$env": NAME }`, `{ "$file": PATH }`) cannot be read, or
 * a value holds `${NAME}`, which is not expanded. The message starts with
 * the key path and names the variable or file, never the value.
 * D-CONFIG-07.
 */
export const GATEHOUSE_CORE_CONFIG_SECRET = createError<[string, string]>(
  'GATEHOUSE_CORE_CONFIG_SECRET', '%s: %s', 500, Error)

/** A route's `authRule` is malformed; the message names the rule, the route and the problem. */
export const GATEHOUSE_CORE_INVALID_AUTH_RULE = createError<[string, string, string]>(
  'GATEHOUSE_CORE_INVALID_AUTH_RULE', 'Invalid authRule %s on %s: %s', 500, TypeError)

/** A route's `fresh` option is not a whole number of seconds from 1 to a year, or `config.fresh` and `fresh` disagree; the message names the value, the route and the problem. */
export const GATEHOUSE_CORE_INVALID_FRESH = createError<[string, string, string]>(
  'GATEHOUSE_CORE_INVALID_FRESH', 'Invalid fresh %s on %s: %s', 500, TypeError)

/**
 * `compileAuthRule` was given a malformed rule. Thrown as its subclass
 * `AuthRuleSyntaxError` (auth-rule.ts), which adds the `position`; route
 * rules report it as `GATEHOUSE_CORE_INVALID_AUTH_RULE`, naming the route.
 * D-CODES-04.
 */
export const GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX = createError<[string]>(
  'GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX', '%s', 500, SyntaxError)

/**
 * A route carries an `authRule` or a `fresh` option (either spelling) that
 * no Gatehouse chain compiled: it was declared before the chain or outside
 * its instance tree, or set by an `onRoute` hook that ran after the
 * chain's. Raised by `ready()`; the message names the options (`authRule`,
 * `fresh`, `authRule and fresh`), lists the routes and says why.
 */
export const GATEHOUSE_CORE_UNENFORCED_AUTH_RULE = createError<[string, string, string]>(
  'GATEHOUSE_CORE_UNENFORCED_AUTH_RULE', '%s cannot be enforced on %s: %s', 500, TypeError)

/**
 * Routes existed before the Gatehouse chain (or `trackRouteRules`) was
 * installed, so their rules cannot be seen. Raised by `ready()`; the message
 * prints the routes (Fastify's printRoutes tree).
 */
export const GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN = createError<[string, string]>(
  'GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN',
  'Routes were declared before %s, so an authRule or fresh option on them (in config or as the shorthand) could not be seen; declare routes after middlewareChain, or call trackRouteRules(app) right after creating the instance. Routes:\n%s', 500, TypeError)

/** A route's `config.challengeAnonymous` is not a boolean, or is set on a route without an `authRule`. */
export const GATEHOUSE_CORE_INVALID_ROUTE_OPTION = createError<[string, string, string]>(
  'GATEHOUSE_CORE_INVALID_ROUTE_OPTION', 'Invalid %s on %s: %s', 500, TypeError)

/** `new Avatar(…)` was given no identity or no backend. */
export const GATEHOUSE_CORE_INVALID_AVATAR = createError<[string]>(
  'GATEHOUSE_CORE_INVALID_AVATAR', 'Invalid Avatar: %s', 500, TypeError)

/** `parseTags` (or a `tags` option) was given something other than a string or a list of strings. */
export const GATEHOUSE_CORE_INVALID_TAGS = createError<[string]>(
  'GATEHOUSE_CORE_INVALID_TAGS', 'Invalid tags: %s', 500, TypeError)

/** An `HttpError` or `Redirect` was built with a status, header or location it cannot send. */
export const GATEHOUSE_CORE_INVALID_HTTP_ERROR = createError<[string]>(
  'GATEHOUSE_CORE_INVALID_HTTP_ERROR', 'Invalid HttpError or Redirect: %s', 500, TypeError)

/** A `WWW-Authenticate` challenge cannot be written: a scheme or parameter name that is not a token, or a control character in a value. */
export const GATEHOUSE_CORE_INVALID_CHALLENGE = createError<[string]>(
  'GATEHOUSE_CORE_INVALID_CHALLENGE', 'Invalid challenge: %s', 500, TypeError)

// Request failures: coded errors with a 4xx status, answered by the errors component.

/**
 * The caller is anonymous or does not satisfy the route's `authRule`. The
 * one class of the code whoever is refused (D-CORE-15); for an anonymous
 * caller on a route an authentication component sees, the message names
 * the schemes it accepts (`Sign in with Basic or Bearer credentials`).
 */
export const GATEHOUSE_CORE_FORBIDDEN = createError(
  'GATEHOUSE_CORE_FORBIDDEN', 'Insufficient permissions for this route', 403)

/**
 * An anonymous caller sent an `Authorization` header that nothing on the
 * route reads (no auth component above it), and the route's rule refuses
 * it: 403, the message naming the scheme sent. D-AUTH-73.
 */
export const GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED = createError<[string]>(
  'GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED', '%s', 403)

/**
 * The code of the 401 an anonymous caller gets on a route whose rule it
 * fails when `challengeAnonymous` is on (route config or the auth
 * component's option): carries the challenges of the schemes auth accepts.
 */
export const UNAUTHENTICATED = 'GATEHOUSE_CORE_UNAUTHENTICATED'

/**
 * The code of `ReauthenticateError` (fresh.ts), 401: the route's `fresh`
 * asks for a more recent sign-in than the caller's (or the caller has none).
 */
export const REAUTHENTICATE = 'GATEHOUSE_CORE_REAUTHENTICATE'
