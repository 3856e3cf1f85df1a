import { escapeHtml } from './html.js'

/** One HTML page of the `_server` app. */
export interface Page {
  readonly title: string
  /** Where the `_server` app is mounted (`/_server`): the assets, the account page and sign-out are under it. */
  readonly prefix: string
  /** Who is signed in (the bar at the top: who, and sign out), or null. */
  readonly signedInAs: string | null
  /** The `<main>` element's content, already HTML. */
  readonly main: string
  /** A script of the `_server` app (`login.js`): a file, never inline (the CSP forbids it). */
  readonly script?: string
  /** A wide page (a table): the account page. */
  readonly wide?: boolean
}

/** Where every sign-out form posts: signs out, then the login page (with `next`, when the form gives one). */
export function logoutAction (prefix: string): string {
  return `${prefix}/account/logout`
}

/** A sign-out form: one button. */
export function signOutForm (prefix: string): string {
  return `<form method="post" action="${escapeHtml(logoutAction(prefix))}">
<button type="submit">Sign out</button>
</form>`
}

/**
 * Who is signed in, on every page Gatehouse shows a signed-in browser
 * (ASVS 5.0 V7.4.4: sign-out in sight on every page behind a sign-in). No
 * link to the account page: it may be off (`account: false`), sign-out
 * never is. D-SERVER-36.
 */
function signedInBar (prefix: string, identity: string): string {
  return `<header class="signed-in">
<p>Signed in as <strong>${escapeHtml(identity)}</strong></p>
${signOutForm(prefix)}
</header>
`
}

/**
 * The frame of every page of the `_server` app: one stylesheet and at most
 * one script, both files of the app (PAGE_HEADERS' CSP allows nothing
 * inline), the signed-in bar, and `main`.
 * D-SERVER-02.
 */
export function renderPage (page: Page): string {
  const prefix = escapeHtml(page.prefix)
  const script = page.script === undefined ? '' : `\n<script src="${prefix}/${escapeHtml(page.script)}" defer></script>`
  const bar = page.signedInAs === null ? '' : signedInBar(page.prefix, page.signedInAs)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<link rel="stylesheet" href="${prefix}/login.css">${script}
</head>
<body>
${bar}<main${page.wide === true ? ' class="wide"' : ''}>
${page.main}
</main>
</body>
</html>
`
}
