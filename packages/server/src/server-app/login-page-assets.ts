// The stylesheet of every page of the `_server` app (and the errors
// component's 403 page), and the login page's script: served as files so
// that the Content-Security-Policy can forbid every inline script and style
// (D-SERVER-02).

export const LOGIN_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.4; }
body { box-sizing: border-box; margin: 0; padding-bottom: 1rem; min-height: 100vh; gap: 1rem; overflow-wrap: break-word; display: flex; flex-direction: column; align-items: center; background: Canvas; color: CanvasText; }
main { box-sizing: border-box; width: min(22rem, 90vw); margin: auto 0; padding: 2rem; border: 1px solid GrayText; border-radius: 0.5rem; }
main.wide { width: min(56rem, 96vw); margin: 2rem 0; }
h1 { margin-top: 0; font-size: 1.5rem; }
h2 { margin: 2rem 0 0.5rem; font-size: 1.2rem; }
label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
input { box-sizing: border-box; width: 100%; padding: 0.5rem; font: inherit; }
button, .button { display: block; box-sizing: border-box; width: 100%; margin-top: 1.25rem; padding: 0.6rem; font: inherit; text-align: center; text-decoration: none; cursor: pointer; position: relative; }
.button { border: 1px solid GrayText; border-radius: 0.25rem; color: inherit; }
main.wide button, main.wide .button { width: auto; padding: 0.5rem 1rem; }
:focus-visible { outline: 3px solid Highlight; outline-offset: 2px; }
#error:empty, #message:empty { display: none; }
#error, #message.error { margin: 1rem 0 0; padding: 0.5rem; border-left: 4px solid #c00; }
#message.done { margin: 1rem 0 0; padding: 0.5rem; border-left: 4px solid #080; }
.divider { margin: 1.5rem 0 0; text-align: center; }
.hint { margin: 0.25rem 0 0; font-size: 0.9rem; }
header.signed-in { box-sizing: border-box; align-self: stretch; display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; padding: 0.5rem 1rem; border-bottom: 1px solid GrayText; }
header.signed-in p { min-width: 0; margin: 0 auto 0 0; }
header.signed-in form { margin: 0; }
header.signed-in button { width: auto; margin: 0; padding: 0.3rem 0.9rem; }
a { color: LinkText; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
/* Positioned: the visually hidden caption and header stay inside it, never widening the page (D-SERVER-52). */
.table { position: relative; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 0.4rem 0.5rem; border-bottom: 1px solid GrayText; text-align: left; vertical-align: top; }
td form, td button { margin: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
/* A phone: the sessions table as stacked rows, each cell named by its column (the label is not read out: the header is). D-SERVER-52. */
@media (max-width: 40rem) {
  main { padding: 1.25rem 1rem; }
  dl { grid-template-columns: minmax(0, 1fr); gap: 0; }
  dd { margin-bottom: 0.5rem; }
  main.wide { box-sizing: border-box; align-self: stretch; width: auto; margin: 1rem 0.5rem; }
  table, tbody, tr, td { display: block; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { padding: 0.75rem 0; border-bottom: 1px solid GrayText; }
  td { padding: 0.15rem 0; border: 0; }
  td[data-label] { display: grid; grid-template-columns: 6.5rem minmax(0, 1fr); gap: 0 0.5rem; }
  td[data-label]::before { content: attr(data-label); content: attr(data-label) / ""; font-weight: 600; }
  td.device { font-weight: 600; }
  td.action { padding-top: 0.5rem; }
}
`

export const LOGIN_JS = `'use strict'
// With JavaScript: sign in with fetch and show errors in place; without it
// the form posts and the server redirects.
const form = document.getElementById('password-form')
const error = document.getElementById('error')
if (form !== null) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    error.textContent = ''
    const button = form.querySelector('button')
    button.disabled = true
    try {
      const response = await fetch(form.action, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ identity: form.identity.value, password: form.password.value })
      })
      if (response.ok) {
        window.location.assign(form.dataset.next || '/')
        return
      }
      if (response.status === 429) {
        const wait = response.headers.get('retry-after') || 'a few'
        error.textContent = 'Too many failed sign-ins. Try again in ' + wait + ' seconds.'
      } else if (response.status === 401) {
        error.textContent = 'Invalid identity or password.'
      } else {
        error.textContent = 'Sign-in failed (' + response.status + '). Please try again.'
      }
    } catch {
      error.textContent = 'The server could not be reached. Please try again.'
    } finally {
      button.disabled = false
    }
    error.focus()
  })
}
`
