import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** Files under `dir` (recursively, any depth) whose bytes contain `needle`, relative to `dir`; [] when `dir` does not exist. */
export function filesContaining(dir: string, needle: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => readFileSync(file).includes(needle))
    .map((file) => relative(dir, file));
}
