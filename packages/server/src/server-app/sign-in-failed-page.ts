import { escapeHtml } from './html.js'
import { renderPage } from './page.js'

/**
 * The page a browser lands on when an OIDC callback is refused. The message
 * is one of OidcMethod's fixed sentences, never text from the request. A
 * browser still signed in (a failed sign-in does not end a session) is told
 * as whom, with the sign-out control.
 * D-OIDC-08.
 */
export function renderSignInFailed (message: string, prefix: string, signedInAs: string | null): string {
  return renderPage({
    title: 'Sign-in failed',
    prefix,
    signedInAs,
    main: `<h1>Sign-in failed</h1>
<p id="error" role="alert">${escapeHtml(message)}</p>
<p><a class="button" href="${escapeHtml(prefix)}/login_page">Back to sign in</a></p>`
  })
}
