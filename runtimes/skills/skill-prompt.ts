import { readRefusal, type ExpandedPrompt, type Host } from "../../core/index.js";
import type { SkillDef } from "../../manifests/claude/load-skills.js";

/**
 * A `/name args` prompt naming a skill, as Claude Code starts one: the skill's instructions (SKILL.md
 * body) with `$ARGUMENTS` replaced by `args` (or, without `$ARGUMENTS`, `args` after them as
 * `ARGUMENTS: …`). Any skill, `disable-model-invocation: true` ones included: you start it. Its
 * `started` calls `onStarted` with the session the prompt goes to (the skills runtime activates the
 * skill there, as a `skill` tool call does, so its `allowed-tools` approve when `widens` says they
 * may). Undefined when the prompt names no skill. Throws nothing; a SKILL.md that a read rule keeps
 * from the model is not sent (`refused` says why).
 */
export function skillPrompt(
  host: Host,
  skills: readonly SkillDef[],
  prompt: string,
  onStarted: (skill: SkillDef, sessionId: string) => void = () => undefined,
  widens: (skill: SkillDef) => boolean = () => false,
): (ExpandedPrompt & { refused?: string }) | undefined {
  const m = /^\s*\/([\w][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(prompt);
  const skill = m ? skills.find((s) => s.name === m[1]) : undefined;
  if (!m || !skill) return undefined;
  const refused = readRefusal(host, host.confinementRoot(), skill.file);
  if (refused) return { name: skill.name, prompt: "", refused: `skill ${skill.name} is not sent: ${refused} keeps its SKILL.md from the model.` };
  const args = (m[2] ?? "").trim();
  const body = skill.body.trim();
  const text = body.includes("$ARGUMENTS") ? body.split("$ARGUMENTS").join(args) : args ? `${body}\n\nARGUMENTS: ${args}` : body;
  const note = allowedToolsNote(skill, widens);
  return { name: skill.name, prompt: `# Skill: ${skill.name}\n\n${text}${note ? `\n\n${note}` : ""}`, started: (sessionId) => onStarted(skill, sessionId) };
}

/** What the model is told of an active skill's `allowed-tools` when they approve calls here; undefined when they approve nothing. */
export function allowedToolsNote(skill: SkillDef, widens: (skill: SkillDef) => boolean): string | undefined {
  if (!skill.allowedTools?.length || !widens(skill)) return undefined;
  return `While this skill is active, these calls need no approval: ${skill.allowedTools.join(", ")} (deny rules still apply).`;
}
