// The account page's script, served as a file (the CSP allows no inline
// script). The page works without it: it only shows the times in the
// reader's own zone and format (the HTML says UTC), and moves the focus to
// the message a form came back with. D-SERVER-38.
export const ACCOUNT_JS = `'use strict'
for (const time of document.querySelectorAll('time[datetime]')) {
  const date = new Date(time.dateTime)
  if (!Number.isNaN(date.getTime())) time.textContent = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}
const message = document.getElementById('message')
if (message !== null && message.textContent !== '') message.focus()
`
