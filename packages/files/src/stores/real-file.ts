import { readlink, realpath } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

// Linux's own limit on symbolic links followed in one path.
const MAX_LINKS = 40

/**
 * The real path of the store file `path`: symbolic links resolved, in its
 * folders and in the name itself, also when the file (or a link's target)
 * does not exist yet. Two store paths that reach one file then lock and
 * rename over the same name: one lock, not one per link, and a compaction
 * replaces the file, never a link to it. D-AUTH-40.
 */
export async function realFile (path: string): Promise<string> {
  let at = resolve(path)
  for (let links = 0; ; links++) {
    try {
      return await realpath(at)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    // Missing: the file itself, or a link to a missing file.
    let target: string
    try {
      target = await readlink(at)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      // Not a link (EINVAL; ENOENT: nothing at all): the file is yet to be made, in its folder's real path.
      if (code === 'EINVAL' || code === 'ENOENT') return join(await realpath(dirname(at)), basename(at))
      throw err
    }
    if (links >= MAX_LINKS) throw Object.assign(new Error(`ELOOP: too many symbolic links from ${path}`), { code: 'ELOOP' })
    at = resolve(dirname(at), target)
  }
}
