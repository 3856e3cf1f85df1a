import { Type } from '@sinclair/typebox'
import { loginOptionsSchema } from '../server-app/options.js'

// Instances, stores, loggers and nested sections: the schema says they are
// objects; resolveServerOptions' section resolvers check the rest (the
// chain and its components check `middleware` and `auth`).
const object = Type.Object({})
// The lockout keys only: resolveLoginOptions checks their values, naming them.
const loginKeys = Type.Object(Object.fromEntries(Object.keys(loginOptionsSchema.properties).map((key) => [key, Type.Optional(Type.Unknown())])),
  { additionalProperties: false })

/** Schema of {@link AppServerOptions}: every key AppServer takes, unknown ones refused. */
export const appServerOptionsSchema = Type.Object({
  primary: Type.Optional(object),
  apps: Type.Optional(Type.Record(Type.String(), object)),
  login: Type.Optional(Type.Boolean()),
  debug: Type.Optional(Type.Boolean()),
  externalUrl: Type.Optional(Type.String()),
  serverApp: Type.Optional(Type.Object({
    login: Type.Optional(loginKeys),
    oidc: Type.Optional(Type.Record(Type.String(), object)),
    allowInsecureIssuers: Type.Optional(Type.Boolean()),
    account: Type.Optional(Type.Union([Type.Literal(false), object]))
  }, { additionalProperties: false })),
  middleware: Type.Optional(object),
  // The chain checks each entry (a component, no two with one name).
  components: Type.Optional(Type.Array(Type.Unknown())),
  session: Type.Optional(object),
  // A pino logger, or Fastify's logger options.
  logger: Type.Optional(Type.Union([Type.Boolean(), object])),
  trustProxy: Type.Optional(Type.Union([
    Type.Boolean(), Type.String(), Type.Integer({ minimum: 0 }), Type.Array(Type.String()),
    Type.Function([Type.String(), Type.Integer()], Type.Boolean())
  ])),
  server: Type.Optional(object),
  auth: Type.Optional(object),
  users: Type.Optional(object),
  tokens: Type.Optional(object),
  adminPassword: Type.Optional(Type.String()),
  // resolvePasswordPolicy checks the keys and bounds, naming passwordPolicy.<key>.
  passwordPolicy: Type.Optional(object),
  // A URL or the options; resolveDatabaseOption checks the shape, the PostgreSQL package the values.
  database: Type.Optional(Type.Union([Type.String(), object]))
}, { additionalProperties: false })
