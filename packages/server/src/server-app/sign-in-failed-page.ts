import { escapeHtml } from './html.js'

/**
 * The page a browser lands on when an OIDC callback is refused. The message
 * is one of OidcMethod's fixed sentences, never text from the request; the
 * links are relative to `<mount>/auth/<method>/callback`, so they hold under
 * any mount path.
 * D-OIDC-08.
 */
export function renderSignInFailed (message: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in failed</title>
<link rel="stylesheet" href="../../login.css">
</head>
<body>
<main>
<h1>Sign-in failed</h1>
<p id="error" role="alert">${escapeHtml(message)}</p>
<p><a class="button" href="../../login_page">Back to sign in</a></p>
</main>
</body>
</html>
`
}
