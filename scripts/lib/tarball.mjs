// Reads an npm tarball (a gzipped ustar archive) without extracting it:
// the file list and the text of one file. Enough for pack-workspace.mjs and
// check-pack.mjs to see what a package ships, with no `tar` binary needed.
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

const BLOCK = 512

function field (header, start, length) {
  const raw = header.subarray(start, start + length)
  const end = raw.indexOf(0)
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8')
}

/** Every regular file of the tarball: its path (with npm's `package/` prefix) and its bytes. */
export function readTarball (path) {
  const archive = gunzipSync(readFileSync(path))
  const files = new Map()
  let longName = null
  for (let at = 0; at + BLOCK <= archive.length;) {
    const header = archive.subarray(at, at + BLOCK)
    if (header.every((byte) => byte === 0)) break
    const size = parseInt(field(header, 124, 12).trim() || '0', 8)
    const type = String.fromCharCode(header[156] || 48)
    const body = archive.subarray(at + BLOCK, at + BLOCK + size)
    const prefix = field(header, 345, 155)
    const name = longName ?? (prefix === '' ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`)
    longName = null
    if (type === 'x') {
      // A pax header: its `path=` record names the next entry.
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))
      if (path !== null) longName = path[1]
    } else if (type === '0') {
      files.set(name, body)
    }
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK
  }
  return files
}

/** The package.json a tarball ships. */
export function tarballManifest (path) {
  const manifest = readTarball(path).get('package/package.json')
  if (manifest === undefined) throw new Error(`${path}: no package/package.json inside`)
  return JSON.parse(manifest.toString('utf8'))
}
