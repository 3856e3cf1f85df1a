import type { FastifyInstance } from 'fastify'
import { safeNextPath } from '@fastify-gatehouse/core'
import type { LoginMethodDescription } from './auth-method.js'
import { escapeHtml, PAGE_HEADERS } from './html.js'
import { LOGIN_CSS, LOGIN_JS } from './login-page-assets.js'

// Messages for the no-JavaScript flow, chosen by a fixed code: nothing from
// the query string is ever shown as text (D-SERVER-01).
const MESSAGES: Readonly<Record<string, string>> = {
  invalid: 'Invalid identity or password.',
  locked: 'Too many failed sign-ins. Try again later.',
  missing: 'Enter your identity and password.'
}

function render (mountPath: string, methods: readonly LoginMethodDescription[], next: string, errorCode: unknown, retry: unknown, reauth: boolean): string {
  let message = typeof errorCode === 'string' ? MESSAGES[errorCode] ?? '' : ''
  // The lockout wait: digits only, so nothing else from the URL is shown.
  if (errorCode === 'locked' && typeof retry === 'string' && /^\d{1,6}$/.test(retry)) message = `Too many failed sign-ins. Try again in ${retry} seconds.`
  const nextParam = encodeURIComponent(next)
  const parts: string[] = []
  for (const method of methods) {
    if (method.kind === 'form') {
      parts.push(`<form id="password-form" method="post" action="${escapeHtml(method.action)}" data-next="${escapeHtml(next)}" novalidate>
  <input type="hidden" name="next" value="${escapeHtml(next)}">
  <label for="identity">Identity</label>
  <input id="identity" name="identity" autocomplete="username" required autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in with ${escapeHtml(method.label)}</button>
</form>`)
    } else {
      if (parts.length > 0) parts.push('<p class="divider">or</p>')
      parts.push(`<a class="button" href="${escapeHtml(`${method.url}?next=${nextParam}`)}">Sign in with ${escapeHtml(method.label)}</a>`)
    }
  }
  if (parts.length === 0) parts.push('<p>No sign-in method is configured.</p>')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in</title>
<link rel="stylesheet" href="${escapeHtml(mountPath)}/login.css">
<script src="${escapeHtml(mountPath)}/login.js" defer></script>
</head>
<body>
<main>
<h1>Sign in</h1>
${reauth ? '<p id="reauth">Sign in again to continue.</p>\n' : ''}<p id="error" role="alert" aria-live="polite" tabindex="-1">${escapeHtml(message)}</p>
${parts.join('\n')}
</main>
</body>
</html>
`
}

/**
 * `GET /login_page?next=`: an accessible sign-in page built from the login
 * methods, working with and without JavaScript, under a strict CSP.
 */
export function registerLoginPage (app: FastifyInstance, mountPath: string, methods: () => readonly LoginMethodDescription[]): void {
  app.get<{ Querystring: { next?: unknown, error?: unknown, retry?: unknown, reauth?: unknown } }>('/login_page', async (request, reply) => {
    const next = safeNextPath(request.query.next)
    // reauth=1: a route's `fresh` sent a signed-in caller here (errors component); a fixed sentence says why (D-ERRORS-12).
    const reauth = request.query.reauth === '1'
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(render(mountPath, methods(), next, request.query.error, request.query.retry, reauth))
  })
  app.get('/login.css', async (_request, reply) => reply.header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(LOGIN_CSS))
  app.get('/login.js', async (_request, reply) => reply.header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(LOGIN_JS))
}
