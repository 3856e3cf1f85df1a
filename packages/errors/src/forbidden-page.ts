import { escapeHtml } from '@fastify-gatehouse/core'

/** What the 403 page shows. */
export interface ForbiddenPage {
  /** Who is signed in. */
  readonly identity: string
  /** The refusal's own message, shown under the fixed sentence when it says more; null for a route rule's. */
  readonly detail: string | null
  /** Where the sign-out forms post. */
  readonly logoutAction: string
  /** The page to come back to after switching account (through safeNextPath). */
  readonly next: string
  readonly stylesheet: string
}

/**
 * The page a signed-in browser gets when a route refuses it (403, login
 * on): who is signed in, that this account has no access, and two ways on:
 * sign out, or sign out and sign in as someone else, coming back here.
 * Forms, not links, because signing out changes state (never on a GET).
 * D-ERRORS-15.
 */
export function renderForbiddenPage (page: ForbiddenPage): string {
  const action = escapeHtml(page.logoutAction)
  const detail = page.detail === null ? '' : `\n<p>${escapeHtml(page.detail)}</p>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>No access</title>
<link rel="stylesheet" href="${escapeHtml(page.stylesheet)}">
</head>
<body>
<main>
<h1>No access</h1>
<p class="signed-in">Signed in as <strong>${escapeHtml(page.identity)}</strong>.</p>
<p>You do not have access to this page.</p>${detail}
<form method="post" action="${action}">
<input type="hidden" name="next" value="${escapeHtml(page.next)}">
<button type="submit">Switch account</button>
</form>
<form method="post" action="${action}">
<button type="submit">Sign out</button>
</form>
</main>
</body>
</html>
`
}
