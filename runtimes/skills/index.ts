import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { allowedToolsAllow, type ExpandedPrompt, type Host, type KeelPlugin } from "../../core/index.js";
import { discoveryDirs } from "../../manifests/discovery-scope.js";
import type { SkillDef, SkillPlace } from "../../manifests/claude/load-skills.js";

const PLUGIN_NAME = "skills-runtime";

declare module "../../core/services.js" {
  interface KeelServices {
    /** The skills keel found (Claude Code's SKILL.md format). */
    skills: {
      list(): readonly SkillDef[];
      /** `/name args` naming a skill, as the prompt that starts it (see skill-prompt.ts); undefined when no skill has that name. */
      expand(prompt: string): Promise<(ExpandedPrompt & { refused?: string }) | undefined>;
    };
  }
}

/**
 * Skills (Claude Code's `SKILL.md` format), from `.claude/skills/` of the working directory and its
 * ancestors up to the workspace root (nearest first), `$KEEL_HOME/skills/` and the `skills/` folder of
 * every loaded plugin. Progressive disclosure: the system prompt lists each skill's name and
 * description (a `beforePrompt` tap); the `skill` tool loads a skill's body and files on demand.
 * A workspace without skill folders costs one directory read per place: nothing is loaded, tapped
 * or registered (the YAML parser and the tool load only when there is something to read).
 */
export function skillsRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      let skills: SkillDef[] = [];
      /** Skills whose `allowed-tools` may approve calls: user-level ones, and a trusted workspace's as `keel trust` approved them. */
      let widening = new Set<SkillDef>();
      host.provide("skills", {
        list: () => skills,
        // a skill you start becomes active as when the model loads it: the same activation, the same trust
        expand: async (prompt) =>
          skills.length
            ? (await import("./skill-prompt.js")).skillPrompt(
                host,
                skills,
                prompt,
                (skill, sessionId) => activate(host, skill, sessionId),
                (skill) => widening.has(skill),
              )
            : undefined,
      });
      const places = skillPlaces(host);
      if (!places.some(hasEntries)) return;
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: 0 }, async () => {
        const [{ loadSkills }, { skillTool }] = await Promise.all([import("../../manifests/claude/load-skills.js"), import("./skill-tool.js")]);
        const loaded = loadSkills(places);
        for (const d of loaded.diagnostics) host.diagnostics.add(d);
        skills = loaded.skills;
        widening = new Set(
          skills.filter(
            (s) =>
              s.allowedTools?.length &&
              (s.level === "user" ||
                host.approves({ kind: "skill", name: `${s.name} (${relative(host.workspace.root, s.file)})`, config: [s.name, s.allowedTools] }, s.file)),
          ),
        );
        // `disable-model-invocation: true`: not for the model (Claude Code lets only the user start it)
        const offered = skills.filter((s) => s.modelInvocable);
        if (offered.length)
          host.registry.register(
            skillTool(
              offered,
              (skill, sessionId) => activate(host, skill, sessionId),
              (skill) => widening.has(skill),
            ),
          );
      });
      // `allowed-tools` of a skill loaded in this session (by the model's `skill` call, or started by you
      // as `/name`, `disable-model-invocation` ones included) approve matching calls that would ask
      // (never a deny, never a strict ask), when the skill may widen: user level, or a trusted workspace
      host.hooks.beforeTool.tapPromise(PLUGIN_NAME, async (ctx) => {
        const sessionId = ctx.run.sessionId;
        if (!sessionId || ctx.permission) return undefined;
        const active = activeSkills(host, sessionId, skills).filter((s) => widening.has(s));
        if (!active.length) return undefined;
        const cwd = ctx.run.cwd ?? host.activeDir;
        for (const skill of active)
          if (await allowedToolsAllow(skill.allowedTools!, ctx.calledAs, ctx.tool, ctx.input, cwd, host.confinementRoot(cwd))) {
            ctx.permission = { decision: "allow", by: `skill ${skill.name} (allowed-tools)` };
            break;
          }
        return undefined;
      });
      host.hooks.beforePrompt.tapPromise(PLUGIN_NAME, async (ctx) => {
        const offered = skills.filter((s) => s.modelInvocable);
        if (offered.length) ctx.system = `${ctx.system}\n\n${skillsSection(offered)}`;
        return ctx;
      });
    },
  };
}

/**
 * Where skills are looked for, in precedence order: your own skills first, `$KEEL_HOME/skills` then
 * your user-level plugins' (as in Claude Code, a personal skill wins over a project's of the same
 * name, so a cloned repository cannot replace the instructions you wrote), then the project's
 * (nearest folder first), then the workspace plugins' (a plugin skill whose name is taken becomes
 * `plugin:name`).
 */
function skillPlaces(host: Host): SkillPlace[] {
  const ws = host.workspace;
  const plugins = (host.service("plugins")?.handOffs() ?? []).map((p): SkillPlace => ({
    dir: join(p.root, "skills"),
    level: p.userLevel ? "user" : "project",
    boundary: p.root,
    plugin: p.plugin,
  }));
  const places: SkillPlace[] = [{ dir: join(ws.keelHome, "skills"), level: "user", boundary: ws.keelHome }, ...plugins.filter((p) => p.level === "user")];
  for (const dir of discoveryDirs(ws.cwd, ws.root)) places.push({ dir: join(dir, ".claude", "skills"), level: "project", boundary: ws.root });
  places.push(...plugins.filter((p) => p.level !== "user"));
  return places;
}

/** The system prompt section: each skill's name and description, and how to load one. */
export function skillsSection(skills: readonly SkillDef[]): string {
  const lines = skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, " ")}`);
  return `# Skills\n\nSkills are folders of instructions for particular tasks. Before a task one of them covers, load it with the \`skill\` tool (\`{"name": "<skill>"}\`) and follow it.\n\n${lines.join("\n")}`;
}

function hasEntries(place: SkillPlace): boolean {
  try {
    return readdirSync(place.dir).length > 0;
  } catch {
    return false;
  }
}

/** Key of the skills runtime in a session's plugin state. */
const STATE_KEY = "skills";

/** Records that `skill` was loaded in `sessionId` (kept in the session's plugin state: it survives a resume). */
function activate(host: Host, skill: SkillDef, sessionId: string | undefined): void {
  const state = sessionId ? host.service("session-state")?.get(sessionId) : undefined;
  if (!state) return;
  const current = state[STATE_KEY] as { active?: unknown } | undefined;
  const active = Array.isArray(current?.active) ? current.active.filter((n): n is string => typeof n === "string") : [];
  if (!active.includes(skill.name)) state[STATE_KEY] = { active: [...active, skill.name] };
}

/** The skills loaded in `sessionId`. */
function activeSkills(host: Host, sessionId: string, skills: readonly SkillDef[]): SkillDef[] {
  const active = (host.service("session-state")?.get(sessionId)?.[STATE_KEY] as { active?: unknown } | undefined)?.active;
  if (!Array.isArray(active)) return [];
  return skills.filter((s) => active.includes(s.name));
}
