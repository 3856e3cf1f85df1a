// Values a config file takes from the environment or from a file, so that
// no secret has to be written into it (DESIGN §11):
//
//   YAML:  token: !env DEPLOY_TOKEN            client_secret: !file /run/secrets/oidc
//   JSON:  "token": { "$env": "DEPLOY_TOKEN" } "client_secret": { "$file": "/run/secrets/oidc" }
//
// `!env NAME` follows the `NAME_FILE` convention of container images: when
// NAME is unset and NAME_FILE is set, the value is read from the file it
// names. Every value read this way is a string. The loader replaces the
// references before anything is checked, so each option takes them; a
// failure names the key path and the variable or file, never the value.
// D-CONFIG-07: the syntax and the rules; D-CONFIG-08: files.
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { ScalarTag } from 'yaml'
import { GATEHOUSE_CORE_CONFIG_SECRET } from './errors.js'
import { isPlainObject } from './plain-object.js'
import { joinPath } from './validate.js'

/** What `!env NAME` or `!file PATH` parse to, until the loader replaces it with the value. */
class ConfigReference {
  constructor (readonly source: 'env' | 'file', readonly target: string) {}
  // As a mapping key (which cannot be a reference) it reads as written.
  toString (): string { return `!${this.source} ${this.target}` }
}

/** The YAML tags `!env` and `!file` (scalars only: on a mapping or list they are an unresolved tag). */
export const referenceTags: ScalarTag[] = [
  { tag: '!env', resolve: (value) => new ConfigReference('env', value) },
  { tag: '!file', resolve: (value) => new ConfigReference('file', value) }
]

/** Where references are read: the environment, and the folder relative file paths start from. */
export interface SecretSources {
  readonly env: Readonly<Record<string, string | undefined>>
  /** The config file's folder. */
  readonly dir: string
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/
// `${NAME}` is not expanded (D-CONFIG-07): a value that is only that is refused with the spelling
// that works; D-CONFIG-15: one holding it among other text is a literal, read as written.
const INTERPOLATION = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/
/** The largest file a value is read from: secrets, PEM keys and certificates are far smaller. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024

function fail (path: string, problem: string): never {
  throw new GATEHOUSE_CORE_CONFIG_SECRET(path, problem)
}

function describeReadError (err: unknown): string {
  switch ((err as { code?: unknown }).code) {
    case 'ENOENT': return 'does not exist'
    case 'EACCES':
    case 'EPERM': return 'cannot be read (permission denied)'
    case 'EISDIR': return 'is a folder, not a file'
    default: return `cannot be read (${String((err as { code?: unknown }).code ?? (err as Error).message)})`
  }
}

/**
 * Up to `limit + 1` bytes of `handle`, read to its end or until past
 * `limit`: the size a file's stat gives is not trusted (a /proc file says
 * 0 and holds megabytes; a file may grow while it is read).
 * D-CONFIG-14.
 */
async function readAtMost (handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit + 1)
  let length = 0
  while (length < buffer.length) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null)
    if (bytesRead === 0) break
    length += bytesRead
  }
  return buffer.subarray(0, length)
}

// D-CONFIG-08: regular files up to 64 KiB of UTF-8; trailing line breaks removed, nothing else.
async function readSecretFile (file: string, path: string, sources: SecretSources, via: string | undefined): Promise<string> {
  const what = `file ${file}${via === undefined ? '' : ` (from ${via})`}`
  if (file === '') fail(path, via === undefined ? '!file takes a file path' : `${via} is empty`)
  let bytes: Buffer
  try {
    // D-CONFIG-14: O_NONBLOCK, so that opening a FIFO returns at once (it would wait for a writer);
    // the type is checked on the open handle, not on the path (no race with a swapped file).
    const handle = await open(resolve(sources.dir, file), constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      const stat = await handle.stat()
      // Not a FIFO or a device: reading /dev/zero would never end.
      if (!stat.isFile()) fail(path, `${what} is not a regular file`)
      bytes = await readAtMost(handle, MAX_SECRET_FILE_BYTES)
      if (bytes.length > MAX_SECRET_FILE_BYTES) fail(path, `${what} is larger than ${MAX_SECRET_FILE_BYTES} bytes`)
    } finally {
      await handle.close()
    }
  } catch (err) {
    if ((err as { code?: unknown }).code === 'GATEHOUSE_CORE_CONFIG_SECRET') throw err
    fail(path, `${what} ${describeReadError(err)}`)
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    fail(path, `${what} is not UTF-8 text`)
  }
  // `echo secret > file` and most editors end a file with a line break that is not part of the secret.
  const value = text.replace(/(?:\r?\n)+$/, '')
  if (value === '') fail(path, `${what} is empty`)
  return value
}

/**
 * Environment variable `name`, or else the content of the file that
 * `${name}_FILE` names (the convention of container images for secrets;
 * relative to `sources.dir`, trailing line breaks removed), or undefined
 * when neither is set. Both set, or a file that cannot be read, throws
 * `GATEHOUSE_CORE_CONFIG_SECRET` starting with `label`; the value is never
 * in a message. An empty variable is returned as it is.
 */
export async function readEnvironmentValue (name: string, sources: SecretSources, label: string): Promise<string | undefined> {
  const value = sources.env[name]
  const file = sources.env[`${name}_FILE`]
  if (value !== undefined && file !== undefined) fail(label, `both ${name} and ${name}_FILE are set: set one`)
  if (file !== undefined) return await readSecretFile(file, label, sources, `${name}_FILE`)
  return value
}

async function readVariable (name: string, path: string, sources: SecretSources): Promise<string> {
  if (!VARIABLE.test(name)) fail(path, '!env takes the name of an environment variable (letters, digits and _, not starting with a digit)')
  const value = await readEnvironmentValue(name, sources, path)
  if (value === undefined) fail(path, `environment variable ${name} is not set (nor ${name}_FILE, a file holding it)`)
  if (value === '') fail(path, `environment variable ${name} is empty`)
  return value
}

// The JSON form: an object whose one key is `$env` or `$file`, naming a string.
function objectReference (value: Record<string, unknown>, path: string): ConfigReference | undefined {
  const source = Object.hasOwn(value, '$env') ? 'env' : Object.hasOwn(value, '$file') ? 'file' : undefined
  if (source === undefined) return undefined
  if (Object.keys(value).length !== 1) fail(path, `{ "$${source}": … } takes no other key`)
  const target = value[`$${source}`]
  if (typeof target !== 'string') fail(path, source === 'env' ? '"$env" takes the name of an environment variable' : '"$file" takes a file path')
  return new ConfigReference(source, target)
}

function checkLiteral (value: string, path: string): void {
  const name = INTERPOLATION.exec(value)?.[1]
  if (name === undefined) return
  fail(path, `\${${name}} is not expanded: write !env ${name} (YAML) or { "$env": "${name}" } (JSON), the whole value coming from the variable`)
}

/**
 * A parsed config file with every reference replaced by its value, and the
 * paths (as written) of the values so read. Throws
 * `GATEHOUSE_CORE_CONFIG_SECRET` naming the key path and the variable or
 * file when one cannot be read; the value is never in a message.
 */
export async function resolveSecrets (value: unknown, sources: SecretSources): Promise<{ value: unknown, paths: ReadonlySet<string> }> {
  const paths = new Set<string>()
  const walk = async (item: unknown, path: string): Promise<unknown> => {
    const reference = item instanceof ConfigReference ? item : isPlainObject(item) ? objectReference(item, path) : undefined
    if (reference !== undefined) {
      paths.add(path)
      return reference.source === 'env'
        ? await readVariable(reference.target, path, sources)
        : await readSecretFile(reference.target, path, sources, undefined)
    }
    if (typeof item === 'string') checkLiteral(item, path)
    if (Array.isArray(item)) {
      const items: unknown[] = []
      for (const [i, element] of item.entries()) items.push(await walk(element, `${path}[${i}]`))
      return items
    }
    if (!isPlainObject(item)) return item
    const copy: Record<string, unknown> = {}
    for (const [key, element] of Object.entries(item)) {
      // defineProperty: a `__proto__` key stays an ordinary key, for the loader to refuse.
      Object.defineProperty(copy, key, { value: await walk(element, path === '' ? key : joinPath(path, key)), enumerable: true, writable: true, configurable: true })
    }
    return copy
  }
  return { value: await walk(value, ''), paths }
}
