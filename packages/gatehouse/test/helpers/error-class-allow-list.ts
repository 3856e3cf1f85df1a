// What error-classes.test.ts lets through, each with its reason. Keep both
// lists short: an entry is a debt, and the test fails on an entry that no
// longer applies, so it goes as soon as it is paid. D-CODES-08.

/**
 * Documented codes not yet thrown as their own class on every path. The
 * test checks that each is still thrown another way somewhere (an
 * `HttpError` carrying it): once it is not, the entry must go.
 */
export const CODES_NOT_YET_CLASSES: Readonly<Record<string, { readonly file: string, readonly reason: string }>> = {}

/**
 * Files of packages/*\/src that build an `HttpError`, and why that is not
 * an internal path for a Gatehouse code.
 */
export const HTTP_ERROR_SITES: Readonly<Record<string, string>> = {
  'packages/core/src/http-error.ts': 'declares HttpError (the convenience for application code)',
  'packages/auth/src/outside-call.ts': 're-issues an HttpError an application\'s own function or store threw, with its status, code and headers and a safe cause (D-AUTH-63): the application\'s class, not a Gatehouse code'
}

/**
 * Uncoded throws in packages/*\/src, each caught inside its package (or a
 * guard no caller can reach): file → where it is caught. An uncoded throw
 * anywhere else fails the test.
 */
export const INTERNAL_THROWS: Readonly<Record<string, string>> = {
  'packages/files/src/stores/journal-format.ts': 'a journal line that cannot be read: journal-file.ts catches it and throws GATEHOUSE_AUTH_STORE_FILE naming the file and line',
  'packages/files/src/stores/v1-document.ts': 'a version-1 store document that cannot be read: journal-file.ts catches it and throws GATEHOUSE_AUTH_STORE_FILE',
  'packages/files/src/stores/real-file.ts': 'ELOOP while resolving a store file\'s links: journal-file.ts catches it and throws GATEHOUSE_AUTH_STORE_FILE',
  'packages/auth/src/jwt-key-resolver.ts': 'a key that does not fit the pinned algorithm: #import catches it; the caller gets 503 GATEHOUSE_AUTH_KEYS_UNAVAILABLE with it as the logged cause',
  'packages/cache/src/open-file.ts': 'an OpenFile used twice: a guard of the cache\'s own send path (OpenFile is not exported)',
  'packages/core/src/process-wide.ts': 'a process-wide name missing from PROCESS_WIDE: a guard for Gatehouse\'s own source (the names are a closed type), kept as it is while issue 26 item 5 reworks the module'
}
