import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { GATEHOUSE_AUTH_STORE_FILE } from '../errors.js'
import { withFileLock } from './file-lock.js'

const MAX_BYTES = 16 * 1024 * 1024

/** What identifies one version of the file on disk. */
function versionOf (s: { mtimeMs: number, size: number, ino: number }): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}`
}

/**
 * A JSON document in one file, shared by several processes: read and
 * validated against `schema` (a corrupt file is an error naming the file
 * and the problem), changed only under a lock, written atomically (a temp
 * file with mode 0600, fsync, rename), and re-read when another process
 * changed it.
 * D-AUTH-09.
 */
export class JsonFile<T> {
  readonly path: string
  readonly #schema: TSchema
  readonly #empty: () => T
  #version = ''

  constructor (path: string, schema: TSchema, empty: () => T) {
    this.path = path
    this.#schema = schema
    this.#empty = empty
  }

  /** The document as on disk now (the empty document when the file does not exist). */
  async read (): Promise<T> {
    let text: string
    try {
      const info = await stat(this.path)
      if (info.size > MAX_BYTES) throw new GATEHOUSE_AUTH_STORE_FILE(this.path, `larger than ${MAX_BYTES} bytes`)
      text = await readFile(this.path, 'utf8')
      this.#version = versionOf(info)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.#version = 'missing'
        return this.#empty()
      }
      if ((err as { code?: string }).code === 'GATEHOUSE_AUTH_STORE_FILE') throw err
      throw new GATEHOUSE_AUTH_STORE_FILE(this.path, (err as Error).message)
    }
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (err) {
      throw new GATEHOUSE_AUTH_STORE_FILE(this.path, `not valid JSON (${(err as Error).message})`)
    }
    const error = Value.Errors(this.#schema, data).First()
    if (error !== undefined) {
      throw new GATEHOUSE_AUTH_STORE_FILE(this.path, `unexpected content at ${error.path || '/'}: ${error.message.toLowerCase()}`)
    }
    return data as T
  }

  /** Whether the file differs from the version last read or written. */
  async changed (): Promise<boolean> {
    const now = await stat(this.path).then(versionOf, () => 'missing')
    return now !== this.#version
  }

  /** Reads the current document under the lock, lets `change` edit it, writes it back; resolves with `change`'s result. */
  async update<R> (change: (data: T) => R): Promise<R> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
    return await withFileLock(this.path, async () => {
      const data = await this.read()
      const result = change(data)
      await this.#write(data)
      return result
    })
  }

  async #write (data: T): Promise<void> {
    const temp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    const file = await open(temp, 'wx', 0o600)
    try {
      await file.writeFile(JSON.stringify(data, null, 2) + '\n')
      await file.sync()
    } finally {
      await file.close()
    }
    try {
      await rename(temp, this.path)
    } catch (err) {
      await unlink(temp).catch(() => {})
      throw err
    }
    this.#version = await stat(this.path).then(versionOf, () => '')
  }
}
