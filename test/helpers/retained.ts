import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** A full garbage collection, in any worker (no `--expose-gc` needed). */
export function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Counts which of the objects it was shown are still alive after a full collection (weakly held: watching keeps nothing). */
export class Retained {
  private readonly refs: WeakRef<object>[] = [];

  /** Watches `value` (an object or a function; anything else is ignored). */
  watch(value: unknown): void {
    if ((typeof value === "object" && value !== null) || typeof value === "function") this.refs.push(new WeakRef(value));
  }

  /** How many were watched. */
  get watched(): number {
    return this.refs.length;
  }

  /** How many are alive after a full collection (run in a later task: an object read in this one is kept until it ends). */
  async alive(): Promise<number> {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setImmediate(r));
      collectGarbage();
    }
    return this.refs.filter((r) => r.deref() !== undefined).length;
  }
}

/**
 * How many signals `AbortSignal.any` has tied to `source` that `source` still holds an entry for: on
 * Node 20 each `AbortSignal.any([source, …])` (and each one over a signal `any` made from `source`)
 * adds a weak entry to `source` that stays for `source`'s life, the signal it stood for collected or
 * not. Read from Node's internals (the `kDependantSignals` set); 0 on a Node that keeps no such set.
 */
export function dependantsOf(source: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(source).find((s) => s.description === "kDependantSignals");
  // Node's own (primordials') Set: not `instanceof` the Set a test sees
  const set = key === undefined ? undefined : ((source as unknown as Record<symbol, unknown>)[key] as { size?: unknown } | undefined);
  return typeof set?.size === "number" ? set.size : 0;
}
