import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { inside, MAX_MANIFEST_BYTES, realOrSelf, readRegularFile, userItemProblem, userItemRefusal, yourOwners, type Diagnostic } from "../../core/index.js";
import { isExcludedBelow } from "../discovery-scope.js";
import { hiddenCharacterProblem } from "../identifier-text.js";
import type { CommandPlace } from "./command-places.js";
import { parseClaudeCommand, parseGeminiCommand, type PromptCommand } from "./prompt-command.js";

/** Diagnostics produced here carry this source. */
export const COMMAND_DIAGNOSTIC_SOURCE = "command";
/** Deepest sub-folder read below a commands folder. */
const MAX_DEPTH = 4;

/**
 * Loads every command of `places` (a place may also name a single file). Claude commands are
 * `*.md`, named by their file name (`.claude/commands/git/commit.md` is `/commit`, as in Claude
 * Code); Gemini commands are `*.toml`, named by their path with `:` (`git/commit.toml` is
 * `/git:commit`). The first command of a name wins; a later plugin command of a taken name becomes
 * `plugin:name`; others get a diagnostic. Files must really lie inside their place's boundary
 * (links out are skipped), outside `node_modules/`, `.git/`, `.keel/worktrees/`, regular, ≤ 1 MiB. Never throws.
 */
export function loadCommands(places: readonly CommandPlace[]): { commands: PromptCommand[]; diagnostics: Diagnostic[] } {
  const commands: PromptCommand[] = [];
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, PromptCommand>();
  const seenFiles = new Set<string>();
  const owners = yourOwners(process.env);
  for (const place of places) {
    const boundary = realOrSelf(place.boundary);
    for (const { file, rel } of commandFiles(place.dir, place.syntax === "claude" ? ".md" : ".toml")) {
      let real: string;
      try {
        real = realpathSync.native(file);
      } catch {
        continue;
      }
      if (seenFiles.has(`${place.syntax}:${real}`)) continue;
      seenFiles.add(`${place.syntax}:${real}`);
      const note = (severity: Diagnostic["severity"], message: string) => diagnostics.push({ severity, source: COMMAND_DIAGNOSTIC_SOURCE, file, message });
      if (!inside(boundary, real) || isExcludedBelow(boundary, real)) {
        note("warning", `The command file leads to ${real}, outside ${place.boundary} (or into node_modules/, .git/, .keel/worktrees/); it was skipped.`);
        continue;
      }
      const foreign = place.level === "user" ? userItemProblem(place.boundary, file, owners) : undefined;
      if (foreign !== undefined) {
        note("error", userItemRefusal("The user-level command file", foreign));
        continue;
      }
      let text: string;
      try {
        text = readRegularFile(real, MAX_MANIFEST_BYTES);
      } catch (error) {
        note("error", (error as Error).message);
        continue;
      }
      const base = place.syntax === "claude" ? baseName(rel, ".md") : rel.slice(0, -".toml".length).split(sep).join(":");
      const hidden = hiddenCharacterProblem(base);
      if (hidden) {
        note("error", `The command's name (from its file name) ${hidden}; the command was skipped.`);
        continue;
      }
      const origin = { file, level: place.level, plugin: place.plugin };
      const parsed = place.syntax === "claude" ? parseClaudeCommand(text, base, origin) : parseGeminiCommand(text, base, origin);
      for (const issue of parsed.issues) note(issue.severity, issue.message);
      if (!parsed.command) continue;
      const name = byName.has(base.toLowerCase()) && place.plugin ? `${place.plugin}:${base}` : base;
      const taken = byName.get(name.toLowerCase());
      if (taken) {
        note("warning", `A command named /${name} is already loaded from ${taken.file}; this one was skipped.`);
        continue;
      }
      const command = { ...parsed.command, name };
      byName.set(name.toLowerCase(), command);
      commands.push(command);
    }
  }
  return { commands, diagnostics };
}

/** Files ending in `ext` below `dir` (or `dir` itself when it is such a file), sorted, with their paths relative to `dir`. */
function commandFiles(dir: string, ext: string): { file: string; rel: string }[] {
  const out: { file: string; rel: string }[] = [];
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return out;
  }
  if (st.isFile() || st.isSymbolicLink()) return dir.endsWith(ext) ? [{ file: dir, rel: dir.slice(dir.lastIndexOf(sep) + 1) }] : out;
  const walk = (at: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(at).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const abs = join(at, name);
      if (name.endsWith(ext)) out.push({ file: abs, rel: relative(dir, abs) });
      else if (depth < MAX_DEPTH && !name.startsWith(".") && name !== "node_modules") {
        const sub = lstatSync(abs, { throwIfNoEntry: false });
        if (sub?.isDirectory()) walk(abs, depth + 1);
      }
    }
  };
  walk(dir, 0);
  return out;
}

function baseName(rel: string, ext: string): string {
  const file = rel.slice(rel.lastIndexOf(sep) + 1);
  return file.slice(0, -ext.length);
}
