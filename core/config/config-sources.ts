import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../errors.js";
import { ancestorsWithin, type Workspace } from "../workspace.js";

/** Names of the config layers, lowest precedence first. */
export type ConfigSourceName = "user" | "legacy" | "claude" | "project" | "local";

/** One loaded config file. */
export interface ConfigLayer {
  source: ConfigSourceName;
  file: string;
  /** Parsed content, or undefined when the file could not be parsed (see `error`). */
  value?: Record<string, unknown>;
  error?: string;
}

/** Files each JSON layer reads, in merge order, for a workspace. The project layer comes from cosmiconfig. */
export function jsonLayerFiles(ws: Workspace): { source: ConfigSourceName; file: string }[] {
  return [
    { source: "user", file: join(ws.keelHome, "config.json") },
    { source: "legacy", file: join(ws.root, ".claw-config.json") },
    { source: "legacy", file: join(ws.root, ".codex-config.json") },
    { source: "claude", file: join(ws.root, ".claude", "settings.json") },
    { source: "claude", file: join(ws.root, ".claude", "settings.local.json") },
  ];
}

/** Path of the local layer (`.keel/config.local.json`). */
export function localConfigFile(ws: Workspace): string {
  return join(ws.stateDir, "config.local.json");
}

/** Reads one JSON layer; missing → undefined; unparseable → a layer with `error` (never thrown). */
export async function readJsonLayer(source: ConfigSourceName, file: string): Promise<ConfigLayer | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
      return undefined;
    return { source, file, error: errorMessage(error) };
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { source, file, error: "the top level must be a JSON object" };
    return { source, file, value: value as Record<string, unknown> };
  } catch (error) {
    return { source, file, error: `not valid JSON: ${errorMessage(error)}` };
  }
}

/** Loads the project layer with cosmiconfig (module `keel`), searching from cwd up to the workspace root (never above). */
export async function loadProjectLayer(ws: Workspace): Promise<ConfigLayer | undefined> {
  const { cosmiconfig, getDefaultSearchPlaces } = await import("cosmiconfig");
  // cosmiconfig's defaults lack `keel.config.json`/`.yaml`; its "global" strategy would also read ~/.config.
  const searchPlaces = [...getDefaultSearchPlaces("keel"), "keel.config.json", "keel.config.yaml", "keel.config.yml"];
  const explorer = cosmiconfig("keel", { searchPlaces, searchStrategy: "none", cache: false });
  try {
    let found = null;
    for (const dir of ancestorsWithin(ws.cwd, ws.root)) {
      found = await explorer.search(dir);
      if (found) break;
    }
    if (!found || found.isEmpty) return undefined;
    const value = found.config as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { source: "project", file: found.filepath, error: "the config must be an object" };
    return { source: "project", file: found.filepath, value: value as Record<string, unknown> };
  } catch (error) {
    const file = (error as { filepath?: string }).filepath ?? join(ws.root, "keel.config.json");
    return { source: "project", file, error: errorMessage(error) };
  }
}
