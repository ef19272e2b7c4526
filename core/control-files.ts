import { isAbsolute, relative, sep } from "node:path";
import { MAX_MANIFEST_BYTES, readRegularFile } from "./bounded-read.js";
import { parseJsonText } from "./json-text.js";
import { nameKey } from "./name-key.js";
import { LEGACY_CONFIG_FILES, PROJECT_CONFIG_FILES } from "./config/config-sources.js";
import { realOrSelf, realTarget } from "./real-path.js";
import type { ToolDefinition } from "./types.js";

/** MCP manifest file names keel discovers in each folder, in precedence order. */
export const MCP_MANIFEST_NAMES = [".claw-mcp.json", ".mcp.json", ".codex-mcp.json", "mcp.json"] as const;

/**
 * File names (in any folder) whose content can widen what keel does once the workspace is trusted:
 * config files (allow rules, model endpoint, servers, sandbox), MCP manifests (processes keel
 * starts), plugin and extension manifests and plugin hook files (hooks, servers, commands), skills.
 * Held as name keys (`nameKey`): `.MCP.json` is `.mcp.json` on a case-insensitive volume.
 */
const CONTROL_NAMES: ReadonlySet<string> = new Set(
  [
    ...PROJECT_CONFIG_FILES.filter((f) => !f.includes("/") && f !== "package.json"),
    ...LEGACY_CONFIG_FILES,
    ...MCP_MANIFEST_NAMES,
    "plugin.json",
    "gemini-extension.json",
    "hooks.json",
    "SKILL.md",
  ].map(nameKey),
);

/** Control files known by their folder too: `.config/keelrc*`, Claude Code's settings (permissions, hooks). Folders and names as keys (`nameKey`). */
const CONTROL_PATHS: readonly (readonly [folder: string, name: (n: string) => boolean])[] = [
  [".config", (n) => n === "keelrc" || n.startsWith("keelrc.")],
  [".claude", (n) => n === "settings.json" || n === "settings.local.json"],
  // Prompt commands: their `allowed-tools` lets their own shell lines run without asking.
  ["commands", (n) => n.endsWith(".md") || n.endsWith(".toml")],
];

/** What a write to a control file is, for the permission layer's reason. */
export interface ControlWrite {
  /** The control file, relative to the boundary (as written, or where it really leads). */
  file: string;
  /** What its content decides. */
  what: string;
}

/**
 * The control file a write of `tool` to `abs` (inside `root`) would change, or undefined. Checked on
 * the path as written and where it really leads (a link `notes.json → .mcp.json` is caught), at any
 * depth (config and manifests are discovered from the working directory up and in plugin folders).
 * `package.json` counts only when the write changes its `keel` field, judged on the whole text the
 * call would leave (`tool.nextText`); a write keel cannot judge exactly counts. Names are compared as
 * keys (`nameKey`), so a case or trailing-dot variant counts too (failing closed). Never throws.
 */
export function controlWriteOf(root: string, abs: string, tool: ToolDefinition, input: unknown): ControlWrite | undefined {
  for (const rel of [relative(root, abs), relative(realOrSelf(root), realTarget(abs))]) {
    if (rel === "" || isAbsolute(rel) || rel === ".." || rel.startsWith(".." + sep)) continue;
    const parts = rel.split(sep).map(nameKey);
    const name = parts[parts.length - 1]!;
    const folder = parts[parts.length - 2];
    if (CONTROL_NAMES.has(name) || CONTROL_PATHS.some(([f, n]) => (f === "commands" ? parts.slice(0, -1).includes(f) : folder === f) && n(name)))
      return { file: rel, what: whatItDecides(name) };
    if (name === "package.json" && changesKeelField(abs, tool, input)) return { file: rel, what: "keel's config (its `keel` field)" };
  }
  return undefined;
}

function whatItDecides(name: string): string {
  if ((MCP_MANIFEST_NAMES as readonly string[]).includes(name)) return "an MCP manifest (servers keel starts)";
  if (name === "skill.md") return "a skill (its allowed-tools)";
  if (name.endsWith(".md") || name.endsWith(".toml")) return "a prompt command (its allowed-tools and shell lines)";
  if (name === "plugin.json" || name === "gemini-extension.json" || name === "hooks.json") return "a plugin manifest (hooks, servers, commands)";
  if (name.startsWith("settings")) return "Claude Code settings (permissions, hooks)";
  return "keel's config (allow rules, model, servers, sandbox)";
}

/**
 * The `keel` field of package.json text, as JSON text; undefined when there is none — no file, no
 * field, or text that is not a JSON object (keel reads no config from it; it parses package.json with
 * `parseJsonText`, as here).
 */
function keelField(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = parseJsonText(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    return JSON.stringify((value as Record<string, unknown>).keel);
  } catch {
    return undefined;
  }
}

/** True unless keel can tell that the write leaves package.json's `keel` field as it is. */
function changesKeelField(abs: string, tool: ToolDefinition, input: unknown): boolean {
  let current: string | undefined;
  try {
    // Bounded, regular files only: a committed `package.json → /dev/zero` or a FIFO must not hang the check.
    current = readRegularFile(abs, MAX_MANIFEST_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return true;
  }
  const next = tool.nextText?.(input, current);
  return next === undefined || keelField(next) !== keelField(current);
}
