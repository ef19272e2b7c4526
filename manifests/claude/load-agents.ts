import { readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import {
  inside,
  MAX_MANIFEST_BYTES,
  realOrSelf,
  readRegularFile,
  userItemProblem,
  userItemRefusal,
  yourOwners,
  type AgentType,
  type Diagnostic,
} from "../../core/index.js";
import { isExcludedBelow } from "../discovery-scope.js";
import { hiddenCharacterProblem } from "../identifier-text.js";
import { listField, parseFrontMatter } from "../markdown/front-matter.js";
import { CLAUDE_DISALLOW_COUNTERPARTS, mapAgentToolName } from "./claude-tool-names.js";

/** Diagnostics produced here carry this source. */
export const AGENT_DIAGNOSTIC_SOURCE = "agent";
/** Longest description kept. */
export const MAX_AGENT_DESCRIPTION = 1024;
/** Claude Code's model aliases: Anthropic names that mean nothing to another endpoint, so the parent's model runs. */
const CLAUDE_MODEL_ALIASES = new Set(["inherit", "sonnet", "opus", "haiku", "default"]);

/** A folder of agent files: each `<dir>/<name>.md`. */
export interface AgentPlace {
  dir: string;
  level: AgentType["level"];
  /** An agent file here must really lie inside this folder (the workspace root, `$KEEL_HOME`, a plugin's root). */
  boundary: string;
  /** The plugin that bundles these agents, if any. */
  plugin?: string;
}

/**
 * Loads the agent types of `places` (Claude Code's agent file format), earlier places first: the
 * first type of a name wins; a later one from a plugin is renamed `plugin:name`, any other gets a
 * diagnostic. A file must really lie inside its place's boundary (a link leading elsewhere is
 * skipped), outside `node_modules/`, `.git/` and `.keel/worktrees/`, and be a regular file of at most
 * 1 MiB. The name is the front matter's `name`, else the file's stem; a file without `description`
 * is skipped. `tools` entries are mapped to keel names (see mapAgentToolName; dropped ones get a
 * warning); a Claude model alias means the parent's model. Never throws.
 */
export function loadAgentTypes(places: readonly AgentPlace[]): { agents: AgentType[]; diagnostics: Diagnostic[] } {
  const agents: AgentType[] = [];
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, AgentType>();
  const warn = (file: string, message: string, severity: Diagnostic["severity"] = "warning") =>
    diagnostics.push({ severity, source: AGENT_DIAGNOSTIC_SOURCE, file, message });
  const owners = yourOwners(process.env);
  for (const place of places) {
    let entries: string[];
    try {
      entries = readdirSync(place.dir)
        .filter((e) => e.endsWith(".md"))
        .sort();
    } catch {
      continue;
    }
    const boundary = realOrSelf(place.boundary);
    for (const entry of entries) {
      const shown = join(place.dir, entry);
      let file: string;
      try {
        file = realpathSync.native(shown);
      } catch {
        continue;
      }
      if (!inside(boundary, file) || isExcludedBelow(boundary, file)) {
        warn(shown, `The agent file leads to ${file}, outside ${place.boundary} (or into node_modules/, .git/, .keel/worktrees/); it was skipped.`);
        continue;
      }
      const foreign = place.level === "user" ? userItemProblem(place.boundary, shown, owners) : undefined;
      if (foreign !== undefined) {
        warn(shown, userItemRefusal("The user-level agent file", foreign), "error");
        continue;
      }
      let text: string;
      try {
        text = readRegularFile(file, MAX_MANIFEST_BYTES);
      } catch (error) {
        warn(shown, `${(error as Error).message}; the agent file was skipped.`, "error");
        continue;
      }
      if (!text.trim()) {
        warn(shown, "The agent file is empty; it was skipped.");
        continue;
      }
      const doc = parseFrontMatter(text);
      if (doc.lenient) warn(shown, `${doc.lenient}; it was read as plain "key: value" lines. Quote values that contain ": ".`, "info");
      const stem = entry.slice(0, -3);
      const name = typeof doc.data.name === "string" && doc.data.name.trim() ? doc.data.name.trim() : stem;
      const hidden = hiddenCharacterProblem(name);
      if (hidden) {
        warn(shown, `The agent type's name (front matter "name", else the file name) ${hidden}; the agent file was skipped.`, "error");
        continue;
      }
      const description = typeof doc.data.description === "string" ? doc.data.description.trim() : "";
      if (!description) {
        warn(shown, `Agent "${name}" has no description in its front matter; it was skipped. Add "description: what it does and when to use it".`, "error");
        continue;
      }
      const unique = byName.has(name) && place.plugin ? `${place.plugin}:${name}` : name;
      const taken = byName.get(unique);
      if (taken) {
        warn(shown, `An agent type named "${unique}" is already loaded from ${taken.file}; this one was skipped.`);
        continue;
      }
      const model = typeof doc.data.model === "string" ? doc.data.model.trim() : "";
      const ignored = IGNORED_FIELDS.filter((f) => doc.data[f] !== undefined && doc.data[f] !== null);
      if (ignored.length)
        warn(
          shown,
          `Agent "${unique}": keel does not support the front matter field${ignored.length > 1 ? "s" : ""} ${ignored.map((f) => `"${f}"`).join(", ")}; ${ignored.length > 1 ? "they are" : "it is"} ignored (the sub-agent runs under the parent's permission rules, hooks and servers, with delegate_agent's step limit).`,
          "info",
        );
      const disallowed = agentDisallowedTools(doc.data.disallowedTools ?? doc.data["disallowed-tools"], (m, severity) =>
        warn(shown, `Agent "${unique}": ${m}.`, severity),
      );
      let tools = agentTools(doc.data.tools, (m) => warn(shown, `Agent "${unique}": ${m}.`));
      // a deny list keel cannot read fails closed: no tools, rather than every tool
      if (disallowed === null) tools = [];
      const agent: AgentType = {
        name: unique,
        description: description.slice(0, MAX_AGENT_DESCRIPTION),
        prompt: doc.body.trim(),
        tools,
        ...(disallowed?.length ? { disallowedTools: disallowed } : {}),
        model: model && !CLAUDE_MODEL_ALIASES.has(model) ? model : undefined,
        file,
        level: place.level,
        plugin: place.plugin,
      };
      byName.set(unique, agent);
      agents.push(agent);
    }
  }
  return { agents, diagnostics };
}

/**
 * Claude Code agent front matter fields keel does not act on: each would change what the sub-agent
 * may do or how it runs, so a file using one gets an `info` diagnostic instead of silence.
 * (`color` only paints Claude Code's terminal and is ignored without one.)
 */
const IGNORED_FIELDS = ["permissionMode", "skills", "mcpServers", "hooks", "maxTurns", "memory", "background", "isolation", "effort"] as const;

/**
 * The `disallowedTools` field as keel names (undefined when absent; null when it is not a list, which
 * the caller turns into no tools at all). It only narrows, so whatever
 * keel cannot express narrows more: an entry with a specifier (`Bash(rm:*)`) removes its whole tool,
 * with a warning saying so; `Task`, `Agent`, `SlashCommand`, `Skill` and `TodoWrite` remove the keel tool doing that work
 * (CLAUDE_DISALLOW_COUNTERPARTS); another Claude Code tool keel has no counterpart for removes nothing (info).
 */
function agentDisallowedTools(value: unknown, report: (message: string, severity?: Diagnostic["severity"]) => void): string[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  const flow = typeof value === "string" ? /^\[(.*)\]$/.exec(value.trim()) : null;
  const entries = flow ? listField(flow[1]!)?.map((e) => e.replace(/^["']|["']$/g, "")) : listField(value);
  if (!entries) {
    report(`"disallowedTools" must be a comma-separated string or a list; the agent gets no tools until it is fixed`, "error");
    return null;
  }
  const names = new Set<string>();
  for (const entry of entries) {
    const spec = /^([^()]+?)\s*\(.*\)\s*$/s.exec(entry.trim());
    const named = (spec ? spec[1]! : entry).trim();
    const counterpart = Object.hasOwn(CLAUDE_DISALLOW_COUNTERPARTS, named) ? CLAUDE_DISALLOW_COUNTERPARTS[named] : undefined;
    const mapped = counterpart ? ({ ok: true, name: counterpart } as const) : mapAgentToolName(named);
    if (!mapped.ok) {
      if (!spec) report(`disallowedTools: ${mapped.reason}; nothing to remove`, "info");
      continue;
    }
    if (spec)
      report(
        `disallowedTools: "${entry.trim()}" has a specifier, which keel cannot express for a sub-agent; the whole tool "${mapped.name}" is removed instead`,
      );
    names.add(mapped.name);
  }
  return [...names];
}

/** The `tools` field as keel names (undefined when absent: every tool); each dropped entry is reported. */
function agentTools(value: unknown, report: (message: string) => void): string[] | undefined {
  // a flow list left as text by the lenient reading (`tools: [Read, Grep]` next to invalid YAML)
  const flow = typeof value === "string" ? /^\[(.*)\]$/.exec(value.trim()) : null;
  const entries = flow ? listField(flow[1]!)?.map((e) => e.replace(/^["']|["']$/g, "")) : listField(value);
  if (!entries) {
    if (value !== undefined && value !== null) report(`"tools" must be a comma-separated string or a list; the agent gets no tools until it is fixed`);
    return value !== undefined && value !== null ? [] : undefined;
  }
  const names = new Set<string>();
  for (const entry of entries) {
    const mapped = mapAgentToolName(entry);
    if (mapped.ok) names.add(mapped.name);
    else report(`${mapped.reason}; it was left out of the agent's tools`);
  }
  return [...names];
}
