import { readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import {
  inside,
  MAX_MANIFEST_BYTES,
  realOrSelf,
  readRegularFile,
  userItemProblem,
  userTreeProblem,
  userTreeRefusal,
  yourOwners,
  type Diagnostic,
} from "../../core/index.js";
import { isExcludedBelow } from "../discovery-scope.js";
import { hiddenCharacterProblem } from "../identifier-text.js";
import { listField, parseFrontMatter, trueField } from "../markdown/front-matter.js";

/** Diagnostics produced here carry this source. */
export const SKILL_DIAGNOSTIC_SOURCE = "skill";
/** Longest description kept (Claude Code's limit). */
export const MAX_SKILL_DESCRIPTION = 1024;

/**
 * Claude Code skill front matter fields that change how a skill runs and that keel does not act on
 * (`argument-hint` and `user-invocable` only shape Claude Code's `/` menu and are ignored silently).
 */
const IGNORED_FIELDS = ["context", "agent", "model", "hooks"] as const;

/** A folder of skills: each `<dir>/<name>/SKILL.md`. */
export interface SkillPlace {
  dir: string;
  level: "project" | "user";
  /** Files of a skill here must really lie inside this folder (the workspace root, `$KEEL_HOME`, a plugin's root). */
  boundary: string;
  /** The plugin that bundles these skills, if any. */
  plugin?: string;
}

/** One skill (Claude Code's `SKILL.md` format). */
export interface SkillDef {
  name: string;
  description: string;
  /** `allowed-tools` of the front matter, as written (Claude rule syntax). */
  allowedTools?: string[];
  /**
   * False for `disable-model-invocation: true`: in Claude Code only the user may start such a skill
   * (as `/name`), so keel neither lists it for the model nor lets the `skill` tool load it.
   */
  modelInvocable: boolean;
  /** The skill's folder and its SKILL.md (real paths). */
  dir: string;
  file: string;
  /** The instructions after the front matter. */
  body: string;
  level: SkillPlace["level"];
  plugin?: string;
}

/**
 * Loads the skills of `places`, earlier places first (the first skill of a name wins; a later one
 * from a plugin is renamed `plugin:name`, any other gets a diagnostic). A skill folder must really lie inside its place's boundary (a symlink leading
 * elsewhere is skipped, so a skill cannot expose files from outside), outside `node_modules/`,
 * `.git/` and `.keel/worktrees/`; so must SKILL.md, read where it really is, a regular file of at most 1 MiB. The name is the
 * front matter's `name`, else the folder's; a skill without a `description` is skipped (the model
 * could not know when to use it). Never throws.
 */
export function loadSkills(places: readonly SkillPlace[]): { skills: SkillDef[]; diagnostics: Diagnostic[] } {
  const skills: SkillDef[] = [];
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, SkillDef>();
  const warn = (file: string, message: string, severity: Diagnostic["severity"] = "warning") =>
    diagnostics.push({ severity, source: SKILL_DIAGNOSTIC_SOURCE, file, message });
  const owners = yourOwners(process.env);
  for (const place of places) {
    let entries: string[];
    try {
      entries = readdirSync(place.dir).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      const file = join(place.dir, entry, "SKILL.md");
      let dir: string;
      try {
        dir = realpathSync.native(join(place.dir, entry));
      } catch {
        continue;
      }
      const boundary = realOrSelf(place.boundary);
      if (!inside(boundary, dir) || isExcludedBelow(boundary, dir)) {
        warn(file, `The skill folder leads to ${dir}, outside ${place.boundary} (or into node_modules/, .git/, .keel/worktrees/); it was skipped.`);
        continue;
      }
      // SKILL.md itself may be a link too: it is read where it really is, which must be inside the boundary as well
      let real: string;
      try {
        real = realpathSync.native(join(dir, "SKILL.md"));
      } catch {
        continue;
      }
      if (!inside(boundary, real) || isExcludedBelow(boundary, real)) {
        warn(file, `SKILL.md leads to ${real}, outside ${place.boundary} (or into node_modules/, .git/, .keel/worktrees/); the skill was skipped.`);
        continue;
      }
      // the whole skill folder: its scripts and the files SKILL.md points the model to are yours as much as SKILL.md
      const foreign = place.level === "user" ? (userItemProblem(place.boundary, file, owners) ?? userTreeProblem(join(place.dir, entry), owners)) : undefined;
      if (foreign !== undefined) {
        warn(file, userTreeRefusal("The user-level skill", foreign), "error");
        continue;
      }
      let text: string;
      try {
        text = readRegularFile(real, MAX_MANIFEST_BYTES);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") warn(file, (error as Error).message, "error");
        continue;
      }
      if (!text.trim()) {
        warn(file, "SKILL.md is empty; the skill was skipped.");
        continue;
      }
      const doc = parseFrontMatter(text);
      if (doc.lenient) warn(file, `${doc.lenient}; it was read as plain "key: value" lines. Quote values that contain ": ".`, "info");
      const name = typeof doc.data.name === "string" && doc.data.name.trim() ? doc.data.name.trim() : entry;
      const hidden = hiddenCharacterProblem(name);
      if (hidden) {
        warn(file, `The skill's name (front matter "name", else the folder name) ${hidden}; the skill was skipped.`, "error");
        continue;
      }
      const description = typeof doc.data.description === "string" ? doc.data.description.trim() : "";
      if (!description) {
        warn(file, `Skill "${name}" has no description in its front matter; it was skipped. Add "description: what it does and when to use it".`, "error");
        continue;
      }
      // a plugin's skill whose name is taken is known as `plugin:name` (as Claude Code namespaces plugin skills)
      const unique = byName.has(name) && place.plugin ? `${place.plugin}:${name}` : name;
      const taken = byName.get(unique);
      if (taken) {
        warn(file, `A skill named "${unique}" is already loaded from ${taken.file}; this one was skipped.`);
        continue;
      }
      const modelInvocable = !trueField(doc.data["disable-model-invocation"]);
      if (!modelInvocable)
        warn(
          file,
          `Skill "${unique}" has disable-model-invocation: true: only you start it, as /${unique} (keel run "/${unique} …" or in keel chat), so it is not offered to the model and the skill tool refuses it.`,
          "info",
        );
      const ignored = IGNORED_FIELDS.filter((f) => doc.data[f] !== undefined && doc.data[f] !== null);
      if (ignored.length)
        warn(
          file,
          `Skill "${unique}": keel does not support the front matter field${ignored.length > 1 ? "s" : ""} ${ignored.map((f) => `"${f}"`).join(", ")}; ${ignored.length > 1 ? "they are" : "it is"} ignored (the skill's instructions are loaded into the current conversation, with its model and hooks).`,
          "info",
        );
      const skill: SkillDef = {
        name: unique,
        description: description.slice(0, MAX_SKILL_DESCRIPTION),
        allowedTools: listField(doc.data["allowed-tools"]),
        modelInvocable,
        dir,
        file: real,
        body: doc.body,
        level: place.level,
        plugin: place.plugin,
      };
      byName.set(unique, skill);
      skills.push(skill);
    }
  }
  return { skills, diagnostics };
}
