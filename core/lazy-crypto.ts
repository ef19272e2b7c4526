import type * as NodeCrypto from "node:crypto";
import { createRequire } from "node:module";

/** Loads Node's built-ins synchronously, on demand (a function, not state: Node caches what it loads). */
const load = createRequire(import.meta.url);

/**
 * `crypto.createHash` with `node:crypto` loaded on the first call rather than imported: its import costs
 * every command ~6 ms of start-up, and a command like `keel tools` hashes nothing (bench/README.md).
 */
export function createHash(algorithm: string): NodeCrypto.Hash {
  return (load("node:crypto") as typeof NodeCrypto).createHash(algorithm);
}

/** `crypto.randomBytes`, with `node:crypto` loaded on the first call (see `createHash`). */
export function randomBytes(size: number): Buffer {
  return (load("node:crypto") as typeof NodeCrypto).randomBytes(size);
}

/** `crypto.createHmac`, with `node:crypto` loaded on the first call (see `createHash`). */
export function createHmac(algorithm: string, key: NodeCrypto.BinaryLike | NodeCrypto.KeyObject): NodeCrypto.Hmac {
  return (load("node:crypto") as typeof NodeCrypto).createHmac(algorithm, key);
}

/** `crypto.timingSafeEqual`, with `node:crypto` loaded on the first call (see `createHash`). */
export function timingSafeEqual(a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean {
  return (load("node:crypto") as typeof NodeCrypto).timingSafeEqual(a, b);
}
