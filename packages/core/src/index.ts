export { Avatar } from './avatar.js'
export type { AvatarInit } from './avatar.js'
export { invalidTag, invalidTagMessage, isTag, parseTags, SUPERADMIN, TAG_CHARACTERS } from './tags.js'
export { isSerializedOrigin, parseList } from './list-option.js'
export type { ListOption } from './list-option.js'
export { HttpError, Redirect } from './http-error.js'
export { GATEHOUSE_CORE_REAUTHENTICATE, isFresh, MAX_FRESH_SECONDS, reauthenticateChallenge, ReauthenticateError } from './fresh.js'
export type { ErrorHeaders, HttpErrorOptions } from './http-error.js'
export { createCodedError, isAnsweredAsItIs, isCodedError, responseHeadersOf, withCause } from './coded-error.js'
export type { CodedError, CodedErrorClass, CodedErrorExtras, CodedErrorOptions } from './coded-error.js'
export { safeNextPath } from './safe-next-path.js'
export { formatChallenge, quoteString } from './challenge.js'
export { ensureScope } from './scope.js'
export { ensureRouteRules } from './route-rules.js'
export { brandClass, processWide, PROCESS_WIDE } from './process-wide.js'
export type { ProcessWideEntry, ProcessWideName, ProcessWideStateName, ProcessWideBrandName } from './process-wide.js'
export { declaredRoutes, routeRules, trackRouteRules } from './route-table.js'
export type { DeclaredRoute, RouteRuleEntry } from './route-table.js'
export { anonymousRefusal, GATEHOUSE_CORE_UNAUTHENTICATED, shownScheme, signInWith } from './anonymous-refusal.js'
export { declareRouteChallenges } from './route-challenges.js'
export type { AuthAccepts } from './route-challenges.js'
export { AuthRuleSyntaxError, compileAuthRule } from './auth-rule.js'
export { setDefaultAuthRule } from './default-auth-rule.js'
// The `authRule` and `fresh` route options (declaration merging into Fastify's types; D-RULES-05).
export type {} from './route-rules.js'
export { routeNeedsCaller } from './route-record.js'
export type { RouteRecord } from './route-record.js'
export { credentialCookies, credentialCookiesGuarded, declareCredentialCookie } from './credential-cookies.js'
export type { AuthRule, Tagged } from './auth-rule.js'
export type { AnyFastifyInstance } from './fastify-instance.js'
export type { RequestScope } from './scope.js'
export { defineComponent, ORDER } from './component.js'
export type { Component, ComponentDefinition, ComponentInfo } from './component.js'
export type { ComponentList } from './component-list.js'
export { middlewareChain } from './chain.js'
export type { ChainEntry, MiddlewareChainOptions } from './chain.js'
export { resolveRecipe } from './recipe.js'
export type { ChainStep, ComponentSetting, Recipe } from './recipe.js'
export { loadRecipe, recipeFromConfig, serverSectionSchema } from './load-recipe.js'
export type { GatehouseConfig, LoadRecipeOptions, ServerSection } from './load-recipe.js'
export { readEnvironmentValue } from './config-secrets.js'
export type { SecretSources } from './config-secrets.js'
export { pickServerLimits, resolveServerLimits, serverLimitDefaults, serverLimitsSchema } from './server-limits.js'
export type { ResolvedServerLimits, ServerLimits } from './server-limits.js'
export { validateOptions } from './validate.js'
export { defineStoreDriver, openStore, storeRoles } from './store-driver.js'
export type { OpenedStore, StoreDriver, StoreOpener, StoreOpeners, StoreRole, StoreRoles } from './store-driver.js'
export { extendOptions } from './validated-options.js'
export { resolveChannel, resolveSection } from './resolve-channel.js'
export {
  addVary,
  CONTROL_CHARACTER,
  hasControlCharacter,
  isToken,
  mergeVary,
  NO_CONTROL_CHARACTERS_PATTERN,
  pathWithoutQuery,
  TOKEN,
  TOKEN_LIST,
  TOKEN_PATTERN
} from './http-syntax.js'
export { sha256 } from './digest.js'
export { escapeHtml, PAGE_HEADERS } from './html.js'
export { LruMap } from './lru-map.js'
export { isPlainObject } from './plain-object.js'
export { isThenable } from './maybe-promise.js'
export { CALLBACK_TIMEOUT_LIMITS, CALLBACK_TIMEOUT_SECONDS, HookTimeout, settleWithin } from './settle-within.js'
export { safeFacts, thrownStatus } from './safe-facts.js'
export type { MaybePromise } from './maybe-promise.js'
export { bootWarning, WARNING_TYPE } from './boot-warning.js'
export type { WarningLogger } from './boot-warning.js'
export { errorForLog, redactHeaders, redactPath, redactQuery, redactText, REDACTED, safeString } from './redact.js'
export {
  GATEHOUSE_CORE_CONFIG_FILE,
  GATEHOUSE_CORE_CONFIG_SECRET,
  GATEHOUSE_CORE_DUPLICATE_COMPONENT,
  GATEHOUSE_CORE_FORBIDDEN,
  GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED,
  GATEHOUSE_CORE_INVALID_AUTH_RULE,
  GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX,
  GATEHOUSE_CORE_INVALID_AVATAR,
  GATEHOUSE_CORE_INVALID_CHALLENGE,
  GATEHOUSE_CORE_INVALID_HTTP_ERROR,
  GATEHOUSE_CORE_INVALID_TAGS,
  GATEHOUSE_CORE_INVALID_COMPONENT,
  GATEHOUSE_CORE_INVALID_FRESH,
  GATEHOUSE_CORE_INVALID_ROUTE_OPTION,
  GATEHOUSE_CORE_INVALID_OPTIONS,
  GATEHOUSE_CORE_NO_COMPONENTS,
  GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN,
  GATEHOUSE_CORE_UNENFORCED_AUTH_RULE,
  GATEHOUSE_CORE_UNKNOWN_COMPONENT,
  REAUTHENTICATE,
  UNAUTHENTICATED
} from './errors.js'
