// Which names (of query parameters, headers, logged fields) say that their
// value is a secret. One rule for all of them, so a name redacted in one
// place is redacted in every other:
//
// - a *stem* anywhere in the name, ignoring case and separators
//   (`accessToken`, `client-secret`, `x-session-id`, `MY_PASSWORD`);
// - a *word* of the name, split at separators and camelCase humps, for the
//   short names that would match too much as stems (`pw`, `pass`, `key`,
//   `sid`: `userPw` and `pass` are secret, `bypass` and `passenger` are not).
//
// Over-redacting a harmless value costs a little debugging; missing a secret
// leaks it into every log sink. When in doubt, a name is secret.

// D-LOGGING-08: one naming rule for query parameters, headers and logged fields.
const STEMS = /token|secret|sessid|passw|passphrase|passcode|pwd|bearer|jwt|session|cookie|credential|signature|assertion|authoriz|apikey|privatekey|accesskey|hmac/

const WORDS = new Set(['pw', 'pass', 'pin', 'otp', 'key', 'sid', 'sig', 'auth'])

// OAuth, OpenID Connect and SAML callback parameters: secret in a URL, but
// as words too common elsewhere (`statusCode`, a `state` field) to be
// secret as header or field names. Parameters starting with `auth` or
// ending in `sig` (`authkey`, `urlsig`) are secret too.
const URL_STEMS = /codeverifier|samlresponse|samlrequest|^auth(?!or)|sig$/
const URL_WORDS = new Set(['code', 'state', 'nonce', 'ticket'])

function words (name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/)
}

/** Whether a header or field called `name` holds a secret (any case, any separators). */
export function isSecretName (name: string): boolean {
  if (STEMS.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''))) return true
  return words(name).some((word) => WORDS.has(word))
}

/** Whether a query parameter called `name` holds a secret: {@link isSecretName}, plus OAuth/SAML callback names (`code`, `state`, `nonce`, `code_verifier`, `ticket`, `SAMLResponse`). */
export function isSecretParam (name: string): boolean {
  if (isSecretName(name)) return true
  if (URL_STEMS.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''))) return true
  return words(name).some((word) => URL_WORDS.has(word))
}
