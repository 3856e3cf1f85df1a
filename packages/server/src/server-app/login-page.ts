import type { FastifyInstance } from 'fastify'
import { safeNextPath } from '@fastify-gatehouse/core'
import type { LoginMethodContext, LoginMethodDescription } from './auth-method.js'
import { escapeHtml, PAGE_HEADERS } from './html.js'
import { renderPage } from './page.js'
import { LOGIN_CSS, LOGIN_JS } from './login-page-assets.js'

// Messages for the no-JavaScript flow, chosen by a fixed code: nothing from
// the query string is ever shown as text (D-SERVER-01).
const MESSAGES: Readonly<Record<string, string>> = {
  invalid: 'Invalid identity or password.',
  locked: 'Too many failed sign-ins. Try again later.',
  missing: 'Enter your identity and password.'
}

/** Who the page is for: `signedInAs` when a browser that is signed in comes here; `reauth` when a route asked for a recent sign-in. */
interface LoginPageRequest {
  readonly next: string
  readonly errorCode: unknown
  readonly retry: unknown
  readonly signedInAs: string | null
  readonly reauth: boolean
  /** The identity a failed form sign-in sent, kept in its field (D-SERVER-54); null on a GET. */
  readonly identity: string | null
}

function render (prefix: string, methods: readonly LoginMethodDescription[], request: LoginPageRequest): string {
  const { next, errorCode, retry, signedInAs, reauth } = request
  let message = typeof errorCode === 'string' ? MESSAGES[errorCode] ?? '' : ''
  // The lockout wait: digits only, so nothing else from the URL is shown.
  if (errorCode === 'locked' && typeof retry === 'string' && /^\d{1,6}$/.test(retry)) message = `Too many failed sign-ins. Try again in ${retry} seconds.`
  const nextParam = encodeURIComponent(next)
  // Confirming it's you: the identity is the one signed in, the password is what is asked.
  const known = reauth && signedInAs !== null
  const identity = request.identity ?? (known ? signedInAs : '')
  // The focus: on the message when there is one (as the script does), else the first field to fill.
  const focus = message !== '' ? 'error' : identity === '' ? 'identity' : 'password'
  const autofocus = (field: string): string => focus === field ? ' autofocus' : ''
  const parts: string[] = []
  for (const method of methods) {
    if (method.kind === 'form') {
      const value = identity === '' ? '' : ` value="${escapeHtml(identity)}"`
      parts.push(`<form id="password-form" method="post" action="${escapeHtml(method.action)}" data-next="${escapeHtml(next)}" novalidate>
  <input type="hidden" name="next" value="${escapeHtml(next)}">
  <label for="identity">Identity</label>
  <input id="identity" name="identity" autocomplete="username" required${value}${autofocus('identity')}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required${autofocus('password')}>
  <button type="submit">Sign in with ${escapeHtml(method.label)}</button>
</form>`)
    } else {
      if (parts.length > 0) parts.push('<p class="divider">or</p>')
      // Confirming it's you: the provider must ask for a new login too (D-OIDC-12).
      parts.push(`<a class="button" href="${escapeHtml(`${method.url}?next=${nextParam}${reauth ? '&reauth=1' : ''}`)}">Sign in with ${escapeHtml(method.label)}</a>`)
    }
  }
  if (parts.length === 0) parts.push('<p>No sign-in method is configured.</p>')
  let intro = ''
  if (reauth) {
    // The sentence the fresh route option's tests know (a fixed one, like every message here).
    intro = '\n<p id="reauth">Sign in again to continue.</p>'
  } else if (signedInAs !== null) {
    // D-SERVER-33: signed in already: go on as that identity, or sign in as another.
    intro = `\n<p>You are signed in as <strong>${escapeHtml(signedInAs)}</strong>.</p>
<p><a class="button" href="${escapeHtml(next)}">Continue</a></p>
<h2>Sign in as someone else</h2>`
  }
  return renderPage({
    title: reauth ? 'Confirm it\'s you' : 'Sign in',
    prefix,
    signedInAs,
    script: 'login.js',
    main: `<h1>${reauth ? 'Confirm it&#39;s you' : 'Sign in'}</h1>${intro}
<p id="error" role="alert" aria-live="polite" tabindex="-1"${autofocus('error')}>${escapeHtml(message)}</p>
${parts.join('\n')}`
  })
}

/**
 * `GET /login_page?next=`: an accessible sign-in page built from the login
 * methods, working with and without JavaScript, under a strict CSP. Returns
 * the page for a form sign-in that failed, which the login method answers
 * in place of a redirect (D-SERVER-54).
 */
export function registerLoginPage (app: FastifyInstance, mountPath: string, methods: () => readonly LoginMethodDescription[]): LoginMethodContext['loginPage'] {
  app.get<{ Querystring: { next?: unknown, error?: unknown, retry?: unknown, reauth?: unknown } }>('/login_page', async (request, reply) => {
    const { query } = request
    // reauth=1: a route's `fresh` sent a signed-in caller here (errors component); a fixed sentence says why (D-ERRORS-12).
    const page = render(mountPath, methods(), {
      next: safeNextPath(query.next),
      errorCode: query.error,
      retry: query.retry,
      signedInAs: request.scope.auth?.identity ?? null,
      reauth: query.reauth === '1',
      identity: null
    })
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page)
  })
  app.get('/login.css', async (_request, reply) => reply.header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(LOGIN_CSS))
  app.get('/login.js', async (_request, reply) => reply.header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(LOGIN_JS))
  return (request, failure) => render(mountPath, methods(), {
    next: failure.next,
    errorCode: failure.error,
    retry: failure.retry === undefined ? undefined : String(failure.retry),
    signedInAs: request.scope.auth?.identity ?? null,
    reauth: false,
    identity: failure.identity
  })
}
