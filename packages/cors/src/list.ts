/** RFC 9110 token: what header names and methods are made of. */
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
