// Shared with the errors component's 403 page, so they live in core.
export { escapeHtml, PAGE_HEADERS } from '@fastify-gatehouse/core'
