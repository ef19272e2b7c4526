/** The assembled host the CLI opens: the library's `createHost`, under the name tests and benchmarks import. */
export { createHost as createKeelHost } from "../lib/create-host.js";
