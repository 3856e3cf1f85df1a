import type { FastifyBaseLogger, FastifyRequest, RouteOptions } from 'fastify'
import { isPlainObject, validateOptions } from '@fastify-gatehouse/core'
import { GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS } from './errors.js'
import { resolveCompressionOptions, routeCompressionOptionsSchema, type ResolvedCompressionOptions, type RouteCompressionOptions } from './options.js'
import { compileSettings, OFF, type Settings } from './settings.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * This route's compression: `false` leaves its responses and request
     * bodies alone; an object replaces the plugin's options it names.
     * Checked at boot (`GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS`).
     */
    compression?: false | RouteCompressionOptions
  }
}

/**
 * Where a route's compiled settings live in its config: a symbol, so JSON
 * and users never see it; Fastify copies the config (own symbols included)
 * into what `request.routeOptions.config` shows.
 */
const kSettings = Symbol('fastify-gatehouse.compression.routeSettings')

type MarkedConfig = Record<PropertyKey, unknown> & { compression?: unknown, [kSettings]?: Settings }

function routeName (route: { method?: unknown, url?: unknown }): string {
  return `${Array.isArray(route.method) ? route.method.join(',') : String(route.method)} ${String(route.url)}`
}

/** Compiles a `config.compression` value over the plugin's options; throws the route error. */
function compile (value: unknown, base: ResolvedCompressionOptions, where: string): Settings {
  if (value === false) return OFF
  if (!isPlainObject(value)) {
    throw new GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS(where, 'config.compression: expected false or an object of options')
  }
  try {
    validateOptions(routeCompressionOptionsSchema, value, 'config.compression')
    return compileSettings(resolveCompressionOptions(value as RouteCompressionOptions, base))
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (code !== 'GATEHOUSE_CORE_INVALID_OPTIONS' && code !== 'GATEHOUSE_COMPRESSION_INVALID_OPTIONS') throw err
    // The core message starts with the path (`config.compression.minimumSize: …`); ours with `compression options: `.
    const message = (err as Error).message.replace(/^compression options: /, 'config.compression.')
    throw new GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS(where, message)
  }
}

/**
 * The per-route half of the component: `onRoute` compiles each route's
 * `config.compression` once (a bad value fails the boot, naming the route),
 * and `settingsOf` finds it again per request.
 * D-COMPRESSION-09.
 */
export function routeSettings (base: ResolvedCompressionOptions, plugin: Settings, log: FastifyBaseLogger): {
  onRoute: (route: RouteOptions) => Settings | undefined
  settingsOf: (config: unknown, request: FastifyRequest) => Settings
} {
  // Routes the onRoute hook never saw (declared before the plugin was
  // registered), compiled on their first request; keyed by the config
  // object Fastify keeps for the route. A bad value cannot fail the boot
  // any more: it is logged once and the route is left alone.
  const late = new WeakMap<object, Settings>()

  function onRoute (route: RouteOptions): Settings | undefined {
    const config = route.config as MarkedConfig | undefined
    const value = config?.compression
    if (value === undefined) return undefined
    const settings = compile(value, base, routeName(route))
    route.config = { ...config, [kSettings]: settings } as RouteOptions['config']
    return settings
  }

  function settingsOf (config: unknown, request: FastifyRequest): Settings {
    const marked = config as MarkedConfig | undefined
    if (marked === undefined || marked === null) return plugin
    const compiled = marked[kSettings]
    if (compiled !== undefined) return compiled
    if (marked.compression === undefined) return plugin
    let settings = late.get(marked)
    if (settings === undefined) {
      settings = compileLate(marked.compression, routeName({ method: request.method, url: request.routeOptions.url }))
      late.set(marked, settings)
    }
    return settings
  }

  function compileLate (value: unknown, where: string): Settings {
    let settings: Settings
    try {
      settings = compile(value, base, where)
    } catch (err) {
      log.error({ err }, `compression: config.compression of ${where} is invalid, and the route was declared before the plugin, so it could not fail the boot; the route is left alone`)
      return OFF
    }
    // Its onRoute hook never ran, so the route has no decoding hook of its own.
    if (settings.request !== null && plugin.request === null) {
      log.error(`compression: config.compression of ${where} turns requestDecompression on, but the route was declared before the plugin: its request bodies are not decoded (register the plugin first)`)
    }
    return settings
  }

  return { onRoute, settingsOf }
}
