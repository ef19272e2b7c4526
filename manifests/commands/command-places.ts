import { join } from "node:path";
import { discoveryDirs } from "../discovery-scope.js";
import type { PromptCommand } from "./prompt-command.js";

/** A folder of command files. */
export interface CommandPlace {
  dir: string;
  syntax: PromptCommand["syntax"];
  level: PromptCommand["level"];
  /** Command files must really lie inside this folder (the workspace root, `$KEEL_HOME`, a plugin's root). */
  boundary: string;
  plugin?: string;
}

/** Where commands are looked for. */
export interface CommandSources {
  cwd: string;
  root: string;
  keelHome: string;
  /** Plugins' command folders and files (`commands/`, and the paths `plugin.json`'s `commands` names). */
  plugins: { plugin: string; root: string; userLevel: boolean; commands: string[] }[];
}

/**
 * The places of `sources`, in precedence order: `$KEEL_HOME/commands` and your user-level plugins'
 * commands (a workspace never replaces one of your own commands), then `.claude/commands` and
 * `.gemini/commands` from the working directory up to the workspace root (nearest first), then the
 * workspace plugins'.
 */
export function commandPlaces(sources: CommandSources): CommandPlace[] {
  const places: CommandPlace[] = [
    { dir: join(sources.keelHome, "commands"), syntax: "claude", level: "user", boundary: sources.keelHome },
    { dir: join(sources.keelHome, "commands"), syntax: "gemini", level: "user", boundary: sources.keelHome },
  ];
  const pluginPlaces = (userLevel: boolean) => {
    for (const p of sources.plugins)
      if (p.userLevel === userLevel)
        for (const dir of p.commands)
          for (const syntax of ["claude", "gemini"] as const)
            places.push({ dir, syntax, level: userLevel ? "user" : "project", boundary: p.root, plugin: p.plugin });
  };
  pluginPlaces(true);
  for (const dir of discoveryDirs(sources.cwd, sources.root)) {
    places.push({ dir: join(dir, ".claude", "commands"), syntax: "claude", level: "project", boundary: sources.root });
    places.push({ dir: join(dir, ".gemini", "commands"), syntax: "gemini", level: "project", boundary: sources.root });
  }
  pluginPlaces(false);
  return places;
}
