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
