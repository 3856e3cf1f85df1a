import type { FastifyInstance } from 'fastify'
import { escapeHtml, PAGE_HEADERS } from './html.js'
import { renderPage, signOutForm } from './page.js'

function render (prefix: string, signedInAs: string | null, accountPage: boolean): string {
  const back = accountPage ? `\n<p><a href="${escapeHtml(prefix)}/account">Back to your account</a></p>` : ''
  const main = signedInAs === null
    ? `<h1>Sign out</h1>
<p>You are not signed in.</p>
<p><a class="button" href="${escapeHtml(prefix)}/login_page">Sign in</a></p>`
    : `<h1>Sign out</h1>
<p>You are signed in as <strong>${escapeHtml(signedInAs)}</strong>.</p>
${signOutForm(prefix)}${back}`
  // The page's own button is the sign-out control: no bar above it.
  return renderPage({ title: 'Sign out', prefix, signedInAs: null, main })
}

/**
 * `GET /logout`: a page with a sign-out button. Signing out changes state,
 * so it is the button's POST that does it, never this GET (a link or an
 * image elsewhere cannot sign anyone out).
 * D-SERVER-32.
 */
export function registerLogoutPage (app: FastifyInstance, accountPage: boolean): void {
  app.get('/logout', async (request, reply) => {
    const page = render(app.prefix, request.scope.auth?.identity ?? null, accountPage)
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page)
  })
}
