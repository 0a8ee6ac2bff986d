// A task that does nothing: the kernel of the runtime-overhead benchmark, for Locus (named
// export, called with the task's data and arguments) and for piscina (default export).
export function noop() {}
export default function run() {}
