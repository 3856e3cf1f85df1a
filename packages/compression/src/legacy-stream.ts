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

/**
 * A Readable fed by an old-style stream's `data`, `end` and `error`
 * events (Node's `Readable#wrap`), so that it can be peeked and piped like
 * any other; destroying it destroys the old stream when that can be.
 * Its listeners are attached at once: what the old stream emits after
 * this call is kept, what it emitted before is gone (as with Fastify's own
 * `pipe`).
 * D-COMPRESSION-15.
 */
export function fromLegacyStream (legacy: Stream): Readable {
  const readable = new Readable({
    destroy (err, callback) {
      const ownDestroy = (legacy as { destroy?: unknown }).destroy
      if (typeof ownDestroy === 'function') (ownDestroy as () => void).call(legacy)
      callback(err)
    }
  })
  // `wrap` takes any emitter of `data`/`end`/`error`; its type asks for a full NodeJS.ReadableStream.
  return readable.wrap(legacy as unknown as NodeJS.ReadableStream)
}
