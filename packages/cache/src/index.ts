// @gatehouse/cache: being built (see the issue tracker); nothing is exported yet.
export {}
