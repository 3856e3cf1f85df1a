import type { ResolvedPasswordPolicy } from '@fastify-gatehouse/auth'
import { escapeHtml } from '../html.js'
import { renderPage } from '../page.js'
import type { SessionItem } from '../account/session-list.js'
import type { AccountMessage } from './messages.js'

/** What the account page shows. */
export interface AccountView {
  readonly prefix: string
  readonly identity: string
  readonly tags: readonly string[]
  readonly backend: string
  /** The caller's session (how and when they signed in), or null for a header credential (Basic, a token, an API key). */
  readonly session: { readonly via: string | null, readonly signedInAt: number } | null
  /** Signed in within `freshFor`: the forms that need it are shown, else a way to confirm it's you. */
  readonly fresh: boolean
  readonly freshFor: number
  /** A password user of this server's store (signed in with it): the password form. */
  readonly passwordChange: boolean
  readonly policy: ResolvedPasswordPolicy
  readonly sessions: ReadonlyArray<SessionItem & { readonly current: boolean }>
  readonly message: AccountMessage | null
}

/** `2025-06-01 14:03 UTC`, in a `<time>` the page's script shows in the reader's own zone (D-SERVER-38). */
function time (iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(`${iso.slice(0, 16).replace('T', ' ')} UTC`)}</time>`
}

function duration (seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`
  return `${seconds} seconds`
}

function message (shown: AccountMessage | null): string {
  if (shown === null) return '<p id="message" role="status" tabindex="-1"></p>'
  const role = shown.kind === 'error' ? 'alert' : 'status'
  return `<p id="message" class="${shown.kind}" role="${role}" tabindex="-1">${escapeHtml(shown.text)}</p>`
}

function who (view: AccountView): string {
  const rows: Array<[string, string]> = [
    ['Identity', escapeHtml(view.identity)],
    ['Tags', view.tags.length === 0 ? 'none' : escapeHtml(view.tags.join(', '))],
    ['Authenticated by', escapeHtml(view.backend)]
  ]
  if (view.session !== null) {
    if (view.session.via !== null) rows.push(['Signed in with', escapeHtml(view.session.via)])
    rows.push(['Signed in at', time(new Date(view.session.signedInAt).toISOString())])
  }
  return `<dl>
${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('\n')}
</dl>`
}

// D-SERVER-34: the sensitive forms only within freshFor; otherwise one way on, signing in again.
function confirm (view: AccountView): string {
  const next = encodeURIComponent(`${view.prefix}/account`)
  return `<section aria-labelledby="confirm-heading">
<h2 id="confirm-heading">Confirm it&#39;s you</h2>
<p>You signed in more than ${duration(view.freshFor)} ago. To change your password or end sessions, sign in again.</p>
<p><a class="button" href="${escapeHtml(`${view.prefix}/login_page?next=${next}&reauth=1`)}">Confirm it&#39;s you</a></p>
</section>`
}

// D-SERVER-37: no maxlength (it truncates a pasted password), a minlength from the policy, nothing touching paste.
function passwordForm (view: AccountView): string {
  const { minLength } = view.policy
  return `<section aria-labelledby="password-heading">
<h2 id="password-heading">Change your password</h2>
<form method="post" action="${escapeHtml(view.prefix)}/account/password">
<label for="current-password">Current password</label>
<input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label>
<input id="new-password" name="new_password" type="password" autocomplete="new-password" required minlength="${minLength}" aria-describedby="new-password-hint">
<p id="new-password-hint" class="hint">At least ${minLength} characters; any characters, spaces included. Not one of the most common passwords, and not your identity.</p>
<label for="new-password-confirm">New password again</label>
<input id="new-password-confirm" name="new_password_confirm" type="password" autocomplete="new-password" required>
<button type="submit">Change password</button>
</form>
<p>Changing it signs you out everywhere else.</p>
</section>`
}

function sessionRow (view: AccountView, item: AccountView['sessions'][number]): string {
  const device = escapeHtml(item.agent ?? 'Unknown device')
  const address = escapeHtml(item.address ?? 'unknown')
  const marker = item.current ? ' <strong>(this session)</strong>' : ''
  let action = ''
  if (view.fresh) {
    // The session named in the button's accessible name: every row has one (D-SERVER-39).
    const label = item.current ? 'Sign out' : 'End session'
    action = `\n<td class="action"><form method="post" action="${escapeHtml(`${view.prefix}/account/sessions/${item.handle}/revoke`)}">
<button type="submit">${label}<span class="visually-hidden">: ${device} at ${address}</span></button>
</form></td>`
  }
  return `<tr${item.current ? ' aria-current="true"' : ''}>
<td class="device">${device}${marker}</td>
<td data-label="Address">${address}</td>
<td data-label="Signed in">${time(item.signed_in_at)}</td>
<td data-label="Last seen">${time(item.last_seen_at)}</td>${action}
</tr>`
}

function sessionsSection (view: AccountView): string {
  const others = view.sessions.filter((item) => !item.current).length
  const everywhereElse = view.fresh && others > 0
    ? `\n<form method="post" action="${escapeHtml(view.prefix)}/account/sessions/revoke-others">
<button type="submit">Sign out everywhere else</button>
</form>`
    : ''
  const rows = view.sessions.map((item) => sessionRow(view, item)).join('\n')
  return `<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Where you are signed in</h2>
<div class="table">
<table>
<caption class="visually-hidden">Your sessions, newest first</caption>
<thead>
<tr><th scope="col">Device</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last seen</th>${view.fresh ? '<th scope="col">Action</th>' : ''}</tr>
</thead>
<tbody>
${rows}
</tbody>
</table>
</div>${everywhereElse}
</section>`
}

/**
 * The account page: who is signed in (tags, backend, since when), sign-out,
 * the password change and the sessions with their revoke buttons. Plain
 * forms posting to the account endpoints, which answer with 303 back here
 * and a code: it works without JavaScript; its script only shows the times
 * in the reader's zone.
 */
export function renderAccountPage (view: AccountView): string {
  const parts = [`<h1>Your account</h1>\n${message(view.message)}`, who(view)]
  // D-SERVER-40: a header credential has no session to list or end, nor a password to change here.
  if (view.session === null) {
    parts.push(`<p>You are signed in with a credential your client sends on every request (${escapeHtml(view.backend)}), not with a session: there is nothing here to sign out of, and no sessions to list.</p>`)
  } else {
    const sensitive = view.passwordChange || view.sessions.some((item) => !item.current)
    if (!view.fresh && sensitive) parts.push(confirm(view))
    if (view.fresh && view.passwordChange) parts.push(passwordForm(view))
    if (!view.passwordChange) parts.push(`<p>Your password is not kept here: you signed in with ${escapeHtml(view.session.via ?? 'another method')}.</p>`)
    parts.push(sessionsSection(view))
  }
  return renderPage({ title: 'Your account', prefix: view.prefix, signedInAs: view.identity, script: 'account.js', wide: true, main: parts.join('\n') })
}
