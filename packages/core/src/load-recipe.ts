import { readFile } from 'node:fs/promises'
import { dirname, extname } from 'node:path'
import type { TObject, TSchema } from '@sinclair/typebox'
import { ConfigSyntaxError, describeAt, parseJsonConfig, parseYamlConfig } from './config-parse.js'
import { resolveSecrets } from './config-secrets.js'
import { resolveSection } from './resolve-channel.js'
import { componentsByName, knownNames, type ComponentList } from './component-list.js'
import { GATEHOUSE_CORE_CONFIG_FILE, GATEHOUSE_CORE_INVALID_OPTIONS, GATEHOUSE_CORE_UNKNOWN_COMPONENT } from './errors.js'
import { resolveRecipe, type ComponentSetting, type Recipe } from './recipe.js'
import { camelToSnake, fromFileKeys, joinPath } from './validate.js'
import { checkOnce, frozenData, recordResolved } from './validated-options.js'
import { isPlainObject } from './plain-object.js'
import { limitsWithDefaults, pickServerLimits, serverSectionSchema, type ServerLimits } from './server-limits.js'

/** The `server` section of a config file: where to listen, the public origin, and the server limits. */
export interface ServerSection extends ServerLimits {
  host?: string
  port?: number
  /** The public origin (absolute http/https URL), used for OIDC redirect URIs. */
  externalUrl?: string
}

/** A whole config file, in the camelCase form of the TypeScript API. */
export interface GatehouseConfig extends Recipe {
  server?: ServerSection
  /** The `_server` app options; validated by the schema the caller supplies. */
  serverApp?: Record<string, unknown>
}

/** Options of {@link loadRecipe} and {@link recipeFromConfig}. */
export interface LoadRecipeOptions {
  /**
   * The components the file's `middleware` and `auth_middleware` sections
   * may name (their schemas convert and check the options). Default: none,
   * so a file naming a component needs them (`loadRecipe` of
   * fastify-gatehouse passes every Gatehouse component).
   */
  components?: ComponentList
  /** Schema of `server_app`, supplied by the package that owns it (@fastify-gatehouse/server). */
  serverAppSchema?: TObject
  /**
   * Where `loadRecipe` reads `!env NAME` (and `NAME_FILE`) from. Default:
   * `process.env`. (`recipeFromConfig` takes values, not references.)
   */
  env?: Readonly<Record<string, string | undefined>>
}

export { serverSectionSchema }

// D-CONFIG-01: files over 1 MiB, duplicate YAML keys and alias bombs are refused.
const MAX_FILE_BYTES = 1024 * 1024
const SECTIONS = ['server', 'middleware', 'auth_middleware', 'server_app']

// A section is converted, checked with the paths as written in the file,
// and frozen: a component's section is handed on as checked, so neither the
// chain nor the component checks it again (D-CHAIN-12). Every section schema
// is an object schema, so anything else fails the check before it is recorded.
function section (schema: TSchema | undefined, value: unknown, fileKey: string, missing: string): Record<string, unknown> {
  if (schema === undefined) throw new GATEHOUSE_CORE_INVALID_OPTIONS(fileKey, missing)
  const display = new Map<string, string>()
  const converted = frozenData(fromFileKeys(schema, value, '', fileKey, display)) as Record<string, unknown>
  return checkOnce(schema, converted, fileKey, display)
}

/**
 * Converts a parsed config object with the spec's snake_case keys
 * (`server`, `middleware`, `auth_middleware`, `server_app`) to the camelCase
 * form and validates it against the schemas of `options.components`. Errors
 * name the path as written, e.g. `middleware.compression.minimum_size:
 * expected integer`. Each section is a frozen copy, checked here once: the
 * chain and the components take a component's section as checked. To
 * change one, make a new object (`{ ...config.middleware.cors, origin }`);
 * it is checked where it is used.
 */
export function recipeFromConfig (config: unknown, options: LoadRecipeOptions = {}): GatehouseConfig {
  const components = options.components ?? []
  const byName = componentsByName(components)
  if (!isPlainObject(config)) throw new GATEHOUSE_CORE_INVALID_OPTIONS('config', 'expected a mapping at the top level')
  const result: GatehouseConfig = {}
  for (const [key, value] of Object.entries(config)) {
    switch (key) {
      case 'server': {
        const server = section(serverSectionSchema, value, 'server', '')
        // The limits, checked by the section's schema, resolved here once
        // (headers_timeout ≤ request_timeout, named as written): pickServerLimits
        // hands them to AppServer as they are (D-CONFIG-17).
        recordResolved(server, serverSectionSchema, resolveSection('limits', () => limitsWithDefaults(pickServerLimits(server), 'server', camelToSnake)))
        result.server = server as ServerSection
        break
      }
      case 'middleware': {
        if (!isPlainObject(value)) throw new GATEHOUSE_CORE_INVALID_OPTIONS('middleware', 'expected a mapping')
        const middleware: Record<string, ComponentSetting> = {}
        for (const [name, setting] of Object.entries(value)) {
          const component = byName.get(name)
          if (component === undefined) throw new GATEHOUSE_CORE_UNKNOWN_COMPONENT(name, knownNames(byName))
          const path = joinPath('middleware', name)
          middleware[name] = isPlainObject(setting) && component.component.schema !== undefined
            ? section(component.component.schema, setting, path, '')
            : setting as ComponentSetting
        }
        result.middleware = Object.freeze(middleware)
        break
      }
      case 'auth_middleware':
        result.authMiddleware = section(byName.get('auth')?.component.schema, value, 'auth_middleware',
          'the auth component is not in the components list (add authPlugin of @fastify-gatehouse/auth)')
        break
      // D-CONFIG-01: validated by the schema its owner supplies; without one the section is an error.
      case 'server_app':
        result.serverApp = section(options.serverAppSchema, value, 'server_app',
          'this section is read by @fastify-gatehouse/server (gatehouse serve)')
        break
      default:
        throw new GATEHOUSE_CORE_INVALID_OPTIONS(key, `unknown section (expected ${SECTIONS.join(', ')})`)
    }
  }
  // The remaining checks (settings, defaults, the auth pairing) are the
  // chain's own, so a file and a TypeScript recipe fail the same way. They
  // run here once: the frozen result is recorded with its chain steps, which
  // middlewareChain(app, config, { components }) takes as they are (D-CONFIG-17).
  const recipe = Object.freeze(result)
  recordResolved(recipe, components, resolveRecipe({
    ...(recipe.middleware === undefined ? {} : { middleware: recipe.middleware }),
    ...(recipe.authMiddleware === undefined ? {} : { authMiddleware: recipe.authMiddleware })
  }, components))
  return recipe
}

// A value from `!env` or `!file` is a string: where the schema wants a number
// or a boolean, the error says so (D-CONFIG-07).
function withReferenceHint (err: unknown, paths: ReadonlySet<string>): unknown {
  if ((err as { code?: unknown }).code !== 'GATEHOUSE_CORE_INVALID_OPTIONS') return err
  const message = (err as Error).message
  const colon = message.indexOf(': expected ')
  if (colon === -1 || !paths.has(message.slice(0, colon)) || message.startsWith('expected string', colon + 2)) return err
  ;(err as Error).message = `${message} (a value from !env or !file is a string: write numbers and booleans in the file)`
  return err
}

/**
 * Reads a YAML (`.yaml`, `.yml`) or JSON (`.json`) config file and returns
 * its camelCase form (see {@link recipeFromConfig}). Values written
 * `!env NAME` / `!file PATH` (YAML) or `{ "$env": NAME }` / `{ "$file":
 * PATH }` (either) are read from the environment (`options.env`) or the
 * file (relative to the config file's folder) first. A file that cannot be
 * read or parsed throws `GATEHOUSE_CORE_CONFIG_FILE` naming the file (and
 * the line and column of a syntax error); a reference that cannot be read
 * throws `GATEHOUSE_CORE_CONFIG_SECRET`; a bad key or value throws
 * `GATEHOUSE_CORE_INVALID_OPTIONS` naming its path.
 */
export async function loadRecipe (path: string, options: LoadRecipeOptions = {}): Promise<GatehouseConfig> {
  const extension = extname(path).toLowerCase()
  if (!['.yaml', '.yml', '.json'].includes(extension)) {
    throw new GATEHOUSE_CORE_CONFIG_FILE(path, 'expected a .yaml, .yml or .json file')
  }
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (err) {
    throw new GATEHOUSE_CORE_CONFIG_FILE(path, (err as Error).message)
  }
  if (bytes.byteLength > MAX_FILE_BYTES) throw new GATEHOUSE_CORE_CONFIG_FILE(path, `larger than ${MAX_FILE_BYTES} bytes`)
  const text = bytes.toString('utf8')
  let parsed: unknown
  try {
    parsed = extension === '.json' ? parseJsonConfig(text) : parseYamlConfig(text)
  } catch (err) {
    if (!(err instanceof ConfigSyntaxError)) throw err
    throw new GATEHOUSE_CORE_CONFIG_FILE(path, err.offset === undefined ? err.message : describeAt(err.message, text, err.offset))
  }
  if (parsed === null || parsed === undefined) parsed = {}
  let paths: ReadonlySet<string> = new Set()
  try {
    const resolved = await resolveSecrets(parsed, { env: options.env ?? process.env, dir: dirname(path) })
    paths = resolved.paths
    return recipeFromConfig(resolved.value, options)
  } catch (err) {
    if (err instanceof Error) err.message = `${path}: ${err.message}`
    throw withReferenceHint(err, new Set([...paths].map((p) => `${path}: ${p}`)))
  }
}
