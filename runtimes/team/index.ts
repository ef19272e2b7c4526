import { join } from "node:path";
import type { Host, KeelPlugin } from "../../core/index.js";
import { TeamStore } from "./team-store.js";
import { teamTools } from "./team-tools.js";

const PLUGIN_NAME = "team-runtime";

/** The team store of a host: state in `.keel/state/teams/`, declared teams in `.keel/teams.json` and `.claw-teams.json`. */
export function teamStoreFor(host: Host): TeamStore {
  const ws = host.workspace;
  return new TeamStore(host.statePath("teams"), [join(ws.root, ".claw-teams.json"), join(ws.stateDir, "teams.json")], ws.root);
}

/** The team runtime: team_* tools, send_message and team_messages. */
export function teamRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: 0 }, async () => {
        for (const tool of teamTools(teamStoreFor(host), () => host.ensureStateDir("state"))) host.registry.register(tool);
      });
    },
  };
}
