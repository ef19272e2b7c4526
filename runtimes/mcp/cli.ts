import { commandGroup, type CommandRegistrar, positiveIntOption, refuseInToolProcess } from "../../core/cli/index.js";

/** Registers `keel mcp [list] [--json]`, `keel mcp doctor [NAME]`, `keel mcp restart NAME`, `keel mcp login|logout NAME`, `keel mcp serve`. Implementations load lazily. */
export const registerMcpCommands: CommandRegistrar = (program, ctx) => {
  const mcp = commandGroup(
    program,
    "mcp",
    "MCP servers from .mcp.json and friends: list, doctor, restart, login, logout, serve",
    "keel mcp [list] | doctor [NAME] | restart NAME | login NAME | logout NAME | serve [--http]",
    async () => (await import("./mcp-commands.js")).mcpListCommand(ctx),
  );
  mcp
    .command("list")
    .description("List MCP servers: transport, source file, state, tools, start-up time, last error")
    .action(async () => (await import("./mcp-commands.js")).mcpListCommand(ctx));
  mcp
    .command("doctor")
    .description("Start servers and time spawn, initialize and tools/list; show stderr and hints")
    .argument("[name]", "only this server")
    .action(async (name?: string) => (await import("./mcp-commands.js")).mcpDoctorCommand(ctx, name));
  mcp
    .command("restart")
    .description("Close a server's breaker, forget its failures and start it again")
    .argument("<name>", "server name")
    .action(async (name: string) => (await import("./mcp-commands.js")).mcpRestartCommand(ctx, name));
  mcp
    .command("serve")
    .description("Serve keel's tools, resources and prompts to MCP clients (stdio, or --http on 127.0.0.1 with a bearer token)")
    .option("--http", "streamable HTTP instead of stdio")
    .option("--port <n>", "HTTP port (default: any free port)", positiveIntOption("--port"))
    .option("--host <addr>", "HTTP address to bind (default 127.0.0.1)")
    .option("--no-auth", "HTTP without a bearer token (loopback only)")
    .option("--tools <globs...>", "serve only tools whose names match these globs")
    .option("--session-idle <seconds>", "HTTP: close a session after this long without a request (default 1800)", positiveIntOption("--session-idle"))
    .option("--max-sessions <n>", "HTTP: most client sessions at once; a new one closes the one idle longest (default 64)", positiveIntOption("--max-sessions"))
    .action(async (opts: { http?: boolean; port?: number; host?: string; auth?: boolean; tools?: string[]; sessionIdle?: number; maxSessions?: number }) =>
      (await import("../serve/serve-command.js")).mcpServeCommand(ctx, opts),
    );
  mcp
    .command("login")
    .description("Authorize keel with an http/sse server (OAuth): prints the URL, opens a browser when there is one, waits for the callback")
    .argument("<name>", "server name")
    .option("--no-browser", "only print the URL")
    .option("--timeout <seconds>", "how long to wait for the browser (default 300)")
    .action(async (name: string, opts: { browser?: boolean; timeout?: string }) => {
      // Authorizing keel with your account is yours to do (see refuseInToolProcess).
      refuseInToolProcess(ctx.io.env, "keel mcp login");
      await (await import("./mcp-login-commands.js")).mcpLoginCommand(ctx, name, opts);
    });
  mcp
    .command("logout")
    .description("Delete a server's stored OAuth tokens and client registration")
    .argument("<name>", "server name")
    .action(async (name: string) => (await import("./mcp-login-commands.js")).mcpLogoutCommand(ctx, name));
};
