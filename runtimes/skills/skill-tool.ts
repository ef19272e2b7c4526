import { lstat, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import {
  confinePath,
  defineTool,
  openFileInside,
  readOpened,
  readRefusal,
  SKILL_TOOL,
  ToolError,
  type ToolContext,
  type ToolDefinition,
} from "../../core/index.js";
import type { SkillDef } from "../../manifests/claude/load-skills.js";
import { allowedToolsNote } from "./skill-prompt.js";

/** Most entries listed of a skill's other files. */
const MAX_LISTED = 200;
/** Largest skill file returned whole (the pipeline truncates text beyond its output limit anyway). */
const MAX_FILE_BYTES = 1024 * 1024;

const inputSchema = {
  type: "object",
  properties: {
    name: { type: "string", description: "The skill's name, as listed under Skills in the system prompt." },
    file: { type: "string", description: "A file of the skill to read (relative to its folder, as listed when the skill was loaded). Omit to load the skill." },
  },
  required: ["name"],
  additionalProperties: false,
} as const;

/**
 * The `skill` tool: progressive disclosure of skills. The system prompt lists only each skill's
 * name and description; calling `skill` with a name returns its instructions (the SKILL.md body)
 * and the list of its other files, which `skill` with `file` reads (confined to the skill's folder:
 * a user-level or plugin skill lives outside the workspace, where read_file does not reach).
 * `onLoaded` is told when a skill is loaded (the skills runtime activates its `allowed-tools`).
 */
export function skillTool(
  skills: readonly SkillDef[],
  onLoaded: (skill: SkillDef, sessionId: string | undefined) => void = () => undefined,
  /** Whether the skill's `allowed-tools` approve calls here (user level, or approved by `keel trust`). */
  widens: (skill: SkillDef) => boolean = () => false,
): ToolDefinition {
  const byName = new Map(skills.map((s) => [s.name, s]));
  return defineTool(inputSchema, {
    name: SKILL_TOOL,
    description:
      "Load a skill: its instructions and the list of its files. Use it before a task that a skill listed under Skills in the system prompt covers; call it again with `file` to read one of the skill's files.",
    source: { kind: "runtime", id: "skills" },
    risk: ["read"],
    readOnly: true,
    async execute(input, ctx) {
      const skill = byName.get(input.name);
      if (!skill) {
        const names = [...byName.keys()];
        throw new ToolError(`No skill named "${input.name}". Skills: ${names.join(", ") || "none"}.`, "precondition_failed");
      }
      if (input.file !== undefined) return { content: await readSkillFile(skill, input.file, ctx) };
      // SKILL.md is a skill file too (one linked to a workspace file a read rule covers shows nothing)
      const refused = readRefusal(ctx.host, ctx.root, skill.file);
      if (refused) throw new ToolError(`Skill ${skill.name} is not shown: ${refused} keeps its SKILL.md from the model.`, "permission_denied");
      onLoaded(skill, ctx.sessionId);
      const files = await listFiles(skill.dir);
      const origin = skill.plugin ? `plugin ${skill.plugin}` : skill.level === "user" ? "user level" : "project";
      const parts = [`# Skill: ${skill.name} (${origin})`, "", skill.body.trim()];
      if (files.length) parts.push("", `Files of this skill (read one with skill {"name": "${skill.name}", "file": "<path>"}):`, ...files.map((f) => `- ${f}`));
      const note = allowedToolsNote(skill, widens);
      if (note) parts.push("", note);
      return { content: parts.join("\n"), data: { name: skill.name, files } };
    },
  });
}

async function readSkillFile(skill: SkillDef, file: string, ctx: ToolContext): Promise<string> {
  const abs = confinePath(skill.dir, file, "file");
  const shown = relative(skill.dir, abs);
  // a skill folder inside the workspace (or linked to a folder of it) shows nothing read_file may not
  const refused = readRefusal(ctx.host, ctx.root, abs);
  if (refused) throw new ToolError(`${shown} of skill ${skill.name} is not shown: ${refused} keeps it from the model.`, "permission_denied");
  let handle;
  try {
    handle = await openFileInside(skill.dir, abs, shown);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new ToolError(`Skill ${skill.name} has no file ${shown}. Load the skill to see its files.`, "execution_failed");
    throw error;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new ToolError(`${shown} is not a regular file.`, "execution_failed");
    if (st.size > MAX_FILE_BYTES)
      throw new ToolError(`${shown} is ${st.size} bytes, more than the ${MAX_FILE_BYTES} bytes the skill tool returns.`, "execution_failed");
    return (await readOpened(handle, st.size)).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** The skill's files other than SKILL.md, relative, sorted; symlinks are listed but not followed. */
async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string, depth: number): Promise<void> => {
    if (depth > 4 || out.length >= MAX_LISTED) return;
    const entries = (await readdir(at).catch(() => [] as string[])).sort();
    for (const name of entries) {
      if (out.length >= MAX_LISTED) return;
      const abs = join(at, name);
      const st = await lstat(abs).catch(() => undefined);
      if (!st) continue;
      const rel = relative(dir, abs).split(sep).join("/");
      if (st.isDirectory()) await walk(abs, depth + 1);
      else if (rel !== "SKILL.md") out.push(rel);
    }
  };
  await walk(dir, 0);
  return out;
}
