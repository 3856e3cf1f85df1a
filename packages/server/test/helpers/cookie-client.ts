/** A minimal browser stand-in: a cookie jar per host, redirects followed by hand. */
export class CookieClient {
  readonly #jar = new Map<string, Map<string, string>>()
  /** Every URL visited, in order. */
  readonly visited: string[] = []

  #cookies (url: URL): string {
    return [...(this.#jar.get(url.host) ?? new Map())].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  #store (url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const eq = pair.indexOf('=')
      const jar = this.#jar.get(url.host) ?? new Map<string, string>()
      const value = pair.slice(eq + 1)
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(pair.slice(0, eq))
      else jar.set(pair.slice(0, eq), value)
      this.#jar.set(url.host, jar)
    }
  }

  cookie (host: string, name: string): string | undefined {
    return this.#jar.get(host)?.get(name)
  }

  /** One request, no redirect following. */
  async request (href: string, init: { method?: string, form?: Record<string, string>, accept?: string } = {}): Promise<Response> {
    const url = new URL(href)
    this.visited.push(url.href)
    const headers: Record<string, string> = { accept: init.accept ?? 'text/html' }
    const cookie = this.#cookies(url)
    if (cookie !== '') headers.cookie = cookie
    let body: string | undefined
    if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(init.form).toString()
    }
    const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'manual' })
    this.#store(url, response)
    return response
  }

  /**
   * Follows redirects (at most 20) from `href`; resolves with the last
   * response. With `until`, stops before visiting a URL it accepts (that URL
   * is returned, with the redirect that pointed there).
   */
  async follow (href: string, init: { method?: string, form?: Record<string, string> } = {}, until?: (url: string) => boolean): Promise<{ response: Response, url: string }> {
    let url = href
    let response = await this.request(url, init)
    for (let hops = 0; response.status >= 300 && response.status < 400; hops++) {
      if (hops > 20) throw new Error('too many redirects')
      url = new URL(response.headers.get('location')!, url).href
      if (until?.(url) === true) break
      response = await this.request(url)
    }
    return { response, url }
  }
}
