import type { Host, KeelPlugin } from "../../core/index.js";
import { discoverMcpServers } from "../../manifests/mcp/discover-mcp-servers.js";
import type { Elicitor } from "./elicitation.js";
import type { McpManager } from "./mcp-manager.js";
import type { AuthProviderFactory } from "./open-client.js";

const PLUGIN_NAME = "mcp-runtime";

/** Name of the service the MCP runtime provides (`host.service(MCP_SERVICE)`). */
export const MCP_SERVICE = "mcp";

declare module "../../core/services.js" {
  interface KeelServices {
    /** MCP connections and their tools (MCP runtime). */
    mcp: McpManager;
  }
}

/** Seams of the MCP runtime: how elicitations are answered and how HTTP servers authenticate. */
export interface McpRuntimeOptions {
  /** Answers `elicitation/create`; default follows config `mcp.elicitation` (ask on a TTY, otherwise decline). */
  elicit?: Elicitor;
  /** Supplies an OAuth provider per HTTP server (none by default). */
  authProvider?: AuthProviderFactory;
}

/**
 * The MCP runtime: discovers MCP manifests (workspace, plugins, user level), starts trusted eager
 * servers in parallel on `registerTools`, registers their tools plus the generic `mcp_*` tools,
 * provides the `"mcp"` service and stops every server on `shutdown`. Loads the manager only when
 * manifests declare servers or resources, and the MCP SDK only when a server actually starts.
 */
export function mcpRuntime(options: McpRuntimeOptions = {}): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      let manager: McpManager | undefined;
      host.hooks.registerTools.tapPromise(PLUGIN_NAME, async () => {
        const handOffs = host.service("plugins")?.handOffs() ?? [];
        const discovered = await discoverMcpServers({ workspace: host.workspace, env: host.env, diagnostics: host.diagnostics, handOffs });
        if (!discovered.servers.length && !discovered.resources.length) return;
        // The manager and its dependencies load only when a workspace has MCP servers or resources.
        const [{ policyElicitor }, { genericMcpTools }, { McpManager }, { HealthStore }, { ToolCache }] = await Promise.all([
          import("./elicitation.js"),
          import("./generic-tools.js"),
          import("./mcp-manager.js"),
          import("./server-health.js"),
          import("./tool-cache.js"),
        ]);
        const ensure = () => host.ensureStateDir("state", "mcp");
        manager = new McpManager(host, discovered, {
          health: new HealthStore(host.statePath("mcp", "health.json"), ensure),
          cache: new ToolCache(host.statePath("mcp", "tool-cache.json"), ensure),
          elicit: options.elicit ?? policyElicitor(host.config.mcp?.elicitation, Boolean(process.stdin.isTTY && process.stderr.isTTY) && !host.env.CI),
          authProvider: options.authProvider,
        });
        host.provide(MCP_SERVICE, manager);
        const servers = manager;
        // Servers' `instructions` (untrusted, labelled by server) join the system prompt: `keel run`, `keel context`.
        // Tapped only when there are servers, so workspaces without MCP keep their hooks as they were.
        host.hooks.beforePrompt.tapPromise(PLUGIN_NAME, async (ctx) => {
          const section = servers.instructionsSection();
          if (section) ctx.system = `${ctx.system}\n\n${section}`;
          return ctx;
        });
        await manager.startAll();
        for (const tool of genericMcpTools(manager)) host.registry.register(tool);
      });
      host.hooks.shutdown.tapPromise(PLUGIN_NAME, async () => {
        await manager?.closeAll();
      });
    },
  };
}
