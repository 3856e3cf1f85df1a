import { Readable, type Stream } from 'node:stream'

/**
 * Whether `stream` is a readable of streams2 or later (`read`, `unshift`):
 * one whose first chunk can be looked at and put back. An old-style
 * (streams1) stream only has `pipe` and emits `data` whether anyone
 * listens or not.
 */
export function isModernReadable (stream: Stream): stream is Readable {
  const candidate = stream as Partial<Readable>
  return typeof candidate.read === 'function' && typeof candidate.unshift === 'function'
}

/** What a streams1 stream may have besides `pipe` and its events. */
interface LegacyStream extends Stream {
  pause?: () => void
  resume?: () => void
  destroy?: () => void
}

/**
 * A Readable fed by an old-style stream's `data`, `end`, `error` and
 * `close` events, so that it can be peeked and piped like any other;
 * destroying it destroys the old stream when that can be. Its listeners
 * are attached at once: what the old stream emits after this call is kept,
 * what it emitted before is gone (as with Fastify's own `pipe`).
 * Written by hand, not with `Readable#wrap`: `wrap` destroys the wrapper
 * when the old stream emits `close`, and streams1 libraries (through,
 * under JSONStream and event-stream) emit `close` right after `end`, before
 * the buffered data is read (D-COMPRESSION-19).
 * D-COMPRESSION-15.
 */
export function fromLegacyStream (stream: Stream): Readable {
  const legacy = stream as LegacyStream
  let ended = false
  const readable = new Readable({
    read () {
      if (typeof legacy.resume === 'function') legacy.resume()
    },
    destroy (err, callback) {
      detach()
      if (!ended && typeof legacy.destroy === 'function') legacy.destroy()
      callback(err)
    }
  })
  const onData = (chunk: unknown): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    if (!readable.push(data) && typeof legacy.pause === 'function') legacy.pause()
  }
  const onEnd = (): void => {
    ended = true
    readable.push(null)
  }
  const onError = (err: Error): void => { readable.destroy(err) }
  const onClose = (): void => {
    // D-COMPRESSION-19: `close` after `end` is how through-style streams finish; `close`
    // without `end` is an aborted body, cut like any stream error.
    if (!ended) readable.destroy(new Error('Premature close: the old-style stream closed before its end'))
  }
  function detach (): void {
    legacy.removeListener('data', onData)
    legacy.removeListener('end', onEnd)
    legacy.removeListener('error', onError)
    legacy.removeListener('close', onClose)
  }
  legacy.on('data', onData)
  legacy.on('end', onEnd)
  legacy.on('error', onError)
  legacy.on('close', onClose)
  return readable
}
