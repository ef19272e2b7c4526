import { sep } from "node:path";
import { describe, expect, it } from "vitest";
import { parseGeminiExtension } from "../../../manifests/plugin/gemini-extension.js";

const ROOT = `${sep}exts${sep}kit`;
const parse = (raw: unknown, existing: string[] = []) => parseGeminiExtension(raw, ROOT, "kit", (p) => existing.includes(p));

describe("gemini-extension.json in keel's terms", () => {
  it("maps Gemini tool names, bare and with a command, and reports what has no counterpart", () => {
    const { extension, issues } = parse({
      name: "kit",
      excludeTools: [
        "run_shell_command",
        "replace",
        "search_file_content",
        "list_directory",
        "mcp_tool_x",
        "ShellTool(git push)",
        "google_web_search",
        "read_file(x)",
        3,
      ],
    });
    expect(extension!.manifest.blockedTools.map((b) => b.name)).toEqual(["bash", "edit_file", "grep", "list_dir", "mcp_tool_x"]);
    expect(extension!.deniedCommands).toEqual([{ prefix: "git push", path: "excludeTools[5]" }]);
    expect(issues.map((i) => [i.severity, i.path])).toEqual([
      ["info", "excludeTools[6]"],
      ["warning", "excludeTools[7]"],
      ["error", "excludeTools[8]"],
    ]);
  });

  it("converts server fields (httpUrl, url as SSE, timeout, include/excludeTools) and expands ${extensionPath} and ${/}", () => {
    const { extension, issues } = parse({
      name: "kit",
      mcpServers: {
        _comment: "ignored",
        local: { command: "node", args: ["${extensionPath}${/}srv.js"], cwd: "${extensionPath}", timeout: 5000, includeTools: ["a"], excludeTools: ["b"] },
        remote: { httpUrl: "http://127.0.0.1:1/mcp", trust: true },
        events: { url: "http://127.0.0.1:1/sse" },
      },
    });
    expect(extension!.mcpServers).toEqual({
      local: { command: "node", args: [`${ROOT}${sep}srv.js`], cwd: ROOT, toolTimeoutMs: 5000, enabledTools: ["a"], disabledTools: ["b"] },
      remote: { url: "http://127.0.0.1:1/mcp", type: "http" },
      events: { url: "http://127.0.0.1:1/sse", type: "sse" },
    });
    expect(issues).toEqual([expect.objectContaining({ severity: "info", path: "mcpServers.remote.trust" })]);
  });

  it("${workspacePath} expands to the workspace root when known, and stays as written otherwise", () => {
    const raw = { name: "kit", mcpServers: { s: { command: "node", args: ["${workspacePath}${/}x.js"] } } };
    const ws = `${sep}ws`;
    expect(parseGeminiExtension(raw, ROOT, "kit", () => false, ws).extension!.mcpServers).toEqual({ s: { command: "node", args: [`${ws}${sep}x.js`] } });
    expect(parse(raw).extension!.mcpServers).toEqual({ s: { command: "node", args: [`\${workspacePath}${sep}x.js`] } });
  });

  it("context files: GEMINI.md by default when present, names or lists inside the folder, never outside", () => {
    const gemini = `${ROOT}${sep}GEMINI.md`;
    expect(parse({ name: "kit" }, [gemini]).extension!.contextFiles).toEqual([gemini]);
    expect(parse({ name: "kit" }).extension!.contextFiles).toEqual([]);
    const a = `${ROOT}${sep}A.md`;
    const out = parse({ name: "kit", contextFileName: ["A.md", "../secret.md", "MISSING.md"] }, [a]);
    expect(out.extension!.contextFiles).toEqual([a]);
    expect(out.issues.map((i) => [i.severity, i.path])).toEqual([
      ["error", "contextFileName[1]"],
      ["warning", "contextFileName[2]"],
    ]);
  });

  it("takes the folder name when name is missing; a non-object is an error", () => {
    expect(parse({}).extension!.manifest.name).toBe("kit");
    expect(parse([]).issues[0]).toMatchObject({ severity: "error", path: "" });
  });
});
