// The login page's stylesheet and script: served as files so that the
// Content-Security-Policy can forbid every inline script and style (D-SERVER-02).

export const LOGIN_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { width: min(22rem, 90vw); padding: 2rem; border: 1px solid GrayText; border-radius: 0.5rem; }
h1 { margin-top: 0; font-size: 1.5rem; }
label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
input { box-sizing: border-box; width: 100%; padding: 0.5rem; font: inherit; }
button, .button { display: block; box-sizing: border-box; width: 100%; margin-top: 1.25rem; padding: 0.6rem; font: inherit; text-align: center; text-decoration: none; cursor: pointer; }
.button { border: 1px solid GrayText; border-radius: 0.25rem; color: inherit; }
:focus-visible { outline: 3px solid Highlight; outline-offset: 2px; }
#error:empty { display: none; }
#error { margin: 1rem 0 0; padding: 0.5rem; border-left: 4px solid #c00; }
.divider { margin: 1.5rem 0 0; text-align: center; color: GrayText; }
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
