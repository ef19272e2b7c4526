import type { Host, KeelPlugin } from "../../core/index.js";
import { discoverMcpServers } from "../../manifests/mcp/discover-mcp-servers.js";
import type { Elicitor } from "./elicitation.js";
import type { McpAuth, OpenUrl } from "./mcp-auth.js";
import type { McpManager } from "./mcp-manager.js";
import type { AuthProviderFactory } from "./open-client.js";

const PLUGIN_NAME = "mcp-runtime";

/** Name of the service the MCP runtime provides (`host.service(MCP_SERVICE)`). */
export const MCP_SERVICE = "mcp";

/** Name of the service holding MCP OAuth (`host.service(MCP_AUTH_SERVICE)`). */
export const MCP_AUTH_SERVICE = "mcpAuth";

declare module "../../core/services.js" {
  interface KeelServices {
    /** MCP connections and their tools (MCP runtime). */
    mcp: McpManager;
    /** OAuth of the MCP servers: token store, interactive logins (MCP runtime). */
    mcpAuth: McpAuth;
  }
}

/** Seams of the MCP runtime: how elicitations are answered and how HTTP servers authenticate. */
export interface McpRuntimeOptions {
  /** Answers `elicitation/create`; default follows config `mcp.elicitation` (ask with the host's `elicit`, else on a TTY, otherwise decline). */
  elicit?: Elicitor;
  /** Supplies OAuth per HTTP/SSE server; default keel's (tokens under `$KEEL_HOME/mcp-oauth`, see McpAuth). */
  authProvider?: AuthProviderFactory;
  /** Plays the browser for every server: authorization URLs go here and servers log in as they start (tests, the conformance adapter). */
  openUrl?: OpenUrl;
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
      let auth: McpAuth | undefined;
      host.hooks.registerTools.tapPromise(PLUGIN_NAME, async () => {
        const handOffs = host.service("plugins")?.handOffs() ?? [];
        const found = await discoverMcpServers({ workspace: host.workspace, env: host.env, diagnostics: host.diagnostics, handOffs });
        if (!found.servers.length && !found.resources.length) return;
        // The manager and its dependencies load only when a workspace has MCP servers or resources.
        const [
          { policyElicitor },
          { genericMcpTools },
          { McpManager },
          { HealthStore },
          { ToolCache },
          { ToolCaches, HealthStores, userServerStateFile },
          { McpAuth },
          { OAuthStore },
          { applyDisabledServers, claudeDisabledServers, holdBackForUnreadSettings },
        ] = await Promise.all([
          import("./elicitation.js"),
          import("./generic-tools.js"),
          import("./mcp-manager.js"),
          import("./server-health.js"),
          import("./tool-cache.js"),
          import("./origin-state.js"),
          import("./mcp-auth.js"),
          import("./oauth-store.js"),
          import("./claude-disabled-servers.js"),
        ]);
        // Claude Code settings' `disabledMcpjsonServers` only restricts: honoured from every file, trusted or not;
        // a settings file that cannot be read holds back every server its list could have named (fails closed).
        const disabled = applyDisabledServers(found.servers, claudeDisabledServers(host.configInfo.layers, host.diagnostics));
        const discovered = { ...found, servers: holdBackForUnreadSettings(disabled, host.configInfo.broken, host.diagnostics) };
        const userServers = new Set(discovered.servers.filter((s) => s.trustedByOrigin).map((s) => s.name));
        auth = new McpAuth(new OAuthStore(host.workspace.keelHome), options.openUrl, undefined, host.fetch, host.options.notice);
        host.provide(MCP_AUTH_SERVICE, auth);
        const ensure = () => host.ensureStateDir("state", "mcp");
        manager = new McpManager(host, discovered, {
          // State about the user's own servers lives under $KEEL_HOME: a committed .keel/ cannot speak for them.
          health: new HealthStores(
            new HealthStore(host.statePath("mcp", "health.json"), ensure),
            new HealthStore(userServerStateFile(host.workspace.keelHome, host.workspace.root, "health")),
            (name) => userServers.has(name),
          ),
          cache: new ToolCaches(
            new ToolCache(host.statePath("mcp", "tool-cache.json"), ensure),
            new ToolCache(userServerStateFile(host.workspace.keelHome, host.workspace.root, "tool-cache")),
          ),
          elicit:
            options.elicit ??
            policyElicitor(
              host.config.mcp?.elicitation,
              host.options.elicit !== undefined || (Boolean(process.stdin.isTTY && process.stderr.isTTY) && !host.env.CI),
              host.options.elicit,
            ),
          authProvider: options.authProvider ?? ((s, deadline) => auth!.forServer(s, deadline)),
        });
        host.provide(MCP_SERVICE, manager);
        const servers = manager;
        // Tool results (of every tool, not only this server's) hide the credentials of the servers that may start.
        host.resultSecrets.addSource(() => {
          let found: string[] | undefined;
          for (const c of servers.connections) {
            const credentials = c.credentials;
            if (credentials.length && servers.isTrusted(c)) (found ??= []).push(...credentials);
          }
          return found ?? [];
        });
        host.hooks.unknownTool.tap(PLUGIN_NAME, ({ name }) => servers.explainUnknown(name));
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
        await auth?.close();
      });
    },
  };
}
