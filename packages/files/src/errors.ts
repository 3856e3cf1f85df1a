// The errors the file stores throw are auth's store errors (the same codes
// as when the stores lived in auth, and as every other user and API key
// store throws): GATEHOUSE_AUTH_STORE_FILE for a file that cannot be read
// or written, GATEHOUSE_AUTH_STORE_INPUT for a record refused,
// GATEHOUSE_AUTH_INVALID_CONFIG for an option out of range, and a 507 when
// a store is full. D-STORES-03.
export { GATEHOUSE_AUTH_INVALID_CONFIG, GATEHOUSE_AUTH_STORE_FILE, GATEHOUSE_AUTH_STORE_INPUT, storeFull } from '@fastify-gatehouse/auth'
