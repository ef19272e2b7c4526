import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { inside } from "../tools/confine-path.js";

/** Folders of the system's shared libraries and dynamic loader: no program starts without them. */
const LIBRARY_DIRS = ["/lib", "/lib64", "/usr/lib", "/usr/lib64"];

/**
 * The hidden path that would leave the sandboxed `program` unable to start — one holding the
 * program itself (found on `PATH` as the spawn would) or the system's libraries — or undefined.
 * Links are compared where they lead (hidden paths are real paths already).
 */
export function hiddenNeed(hidden: readonly string[], program: string, env: NodeJS.ProcessEnv): string | undefined {
  const needed = [...LIBRARY_DIRS, ...located(program, env)].map(realOrUndefined).filter((p): p is string => p !== undefined);
  return hidden.find((h) => needed.some((n) => inside(h, n)));
}

/** Where a spawn would find `program`: itself when it is a path, else each `PATH` entry holding it as an executable (the first one wins). */
function located(program: string, env: NodeJS.ProcessEnv): string[] {
  if (program.includes("/")) return isAbsolute(program) ? [program] : [];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return [candidate];
    } catch {
      // not here
    }
  }
  return [];
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
