import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { isSecretValue } from "../../../runtimes/config/secret-values.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host;
closeAfterEach(() => ({ host, ws }));

const SECRETS = {
  header: "Bearer sk-user-secret-1234567890",
  env: "ghp_usersecret1234567890abcdefgh",
  apiKey: "plain-looking-key-value",
  url: "https://alice:hunter2@proxy.example.com/v1",
  claudeEnv: "claude-env-value-4321",
};

/** A user config and a Claude settings file holding secrets in the places people put them, beside ordinary values. */
function withSecrets(): TempWorkspace {
  const w = makeWorkspace({ ".claude/settings.json": { env: { SOME_VAR: SECRETS.claudeEnv }, permissions: { deny: ["bash(rm *)"] } } });
  writeFileSync(
    join(w.keelHome, "config.json"),
    JSON.stringify({
      model: { name: "m", baseUrl: "http://127.0.0.1:1/v1", apiKeyEnv: "MY_KEY_VAR", maxOutputTokens: 2048, headers: { Authorization: SECRETS.header } },
      mcpServers: { gh: { command: "gh-mcp", env: { GITHUB_TOKEN: SECRETS.env } } },
      tools: { search: { apiKey: SECRETS.apiKey, proxy: SECRETS.url } },
    }),
  );
  return w;
}

describe("config tools never show secret-looking values unless the user asks on the command line", () => {
  it("config_list and config_get called by the model hide env, headers, keys and credential URLs, and keep the rest", async () => {
    ws = withSecrets();
    host = await openTestHost(ws);
    const list = await host.runTool({ tool: "config_list", input: {} }, { origin: "agent" });
    expect(list.ok).toBe(true);
    for (const secret of Object.values(SECRETS).slice(0, 4)) {
      expect(list.content).not.toContain(secret);
      expect(JSON.stringify(list.data)).not.toContain(secret);
    }
    expect(list.content).toContain('model.headers.Authorization = "<hidden: looks like a secret>"');
    expect(list.content).toContain("4 values that look like secrets are hidden");
    // Names of variables, numbers and plain URLs are not secrets: the model still sees them.
    expect(list.content).toContain('model.apiKeyEnv = "MY_KEY_VAR"');
    expect(list.content).toContain("model.maxOutputTokens = 2048");
    expect(list.content).toContain('model.baseUrl = "http://127.0.0.1:1/v1"');

    // One layer as written (Claude settings' env block), and a whole object through config_get.
    const claude = await host.runTool({ tool: "config_list", input: { source: "claude" } }, { origin: "agent" });
    expect(claude.content).not.toContain(SECRETS.claudeEnv);
    expect(claude.content).toContain('permissions.deny = ["bash(rm *)"]');
    const model = await host.runTool({ tool: "config_get", input: { key_path: "model" } }, { origin: "agent" });
    expect(model.ok).toBe(true);
    expect(model.content).not.toContain(SECRETS.header);
    expect(model.data).toMatchObject({ value: { headers: { Authorization: "<hidden: looks like a secret>" }, apiKeyEnv: "MY_KEY_VAR" }, hidden: 1 });
  });

  it("refuses show_secrets to the model, a workflow or an MCP client, and allows it from the user's command line", async () => {
    ws = withSecrets();
    host = await openTestHost(ws);
    for (const origin of ["agent", "workflow:deploy", "mcp-serve"] as const) {
      const refused = await host.runTool({ tool: "config_get", input: { key_path: "mcpServers.gh.env.GITHUB_TOKEN", show_secrets: true } }, { origin });
      expect(refused.ok).toBe(false);
      expect(refused.code).toBe("permission_denied");
      expect(refused.content).toContain("keel config get KEY --show-secrets");
      expect(refused.content).not.toContain(SECRETS.env);
    }
    await host.close();

    const hidden = await runKeel(["config", "get", "mcpServers.gh.env.GITHUB_TOKEN"], { cwd: ws.root, env: ws.env });
    expect(hidden.exitCode).toBe(0);
    expect(hidden.stdout).not.toContain(SECRETS.env);
    const shown = await runKeel(["config", "get", "mcpServers.gh.env.GITHUB_TOKEN", "--show-secrets"], { cwd: ws.root, env: ws.env });
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain(SECRETS.env);
    const all = await runKeel(["config", "list", "--show-secrets", "--json"], { cwd: ws.root, env: ws.env });
    expect(all.exitCode).toBe(0);
    expect(JSON.stringify(all.json().data.entries)).toContain(SECRETS.header);
  });

  it("a hook's command line shows with its credentials masked (webhook URL path, Bearer token, KEY=value)", async () => {
    ws = makeWorkspace();
    const command = "curl -s -H 'Authorization: Bearer opaquetoken12345' https://hooks.slack.com/services/T01/B02/webhookpathsecret -d ok";
    ws.writeUserConfig({
      hooks: {
        Stop: [
          {
            hooks: [
              { type: "command", command },
              { type: "command", command: "API_KEY=plainkeyvalue ./notify.sh" },
            ],
          },
        ],
      },
    });
    host = await openTestHost(ws);
    for (const [tool, input] of [
      ["config_list", {}],
      ["config_get", { key_path: "hooks" }],
    ] as const) {
      const r = await host.runTool({ tool, input }, { origin: "agent" });
      expect(r.ok).toBe(true);
      const text = r.content + JSON.stringify(r.data);
      for (const secret of ["opaquetoken12345", "webhookpathsecret", "plainkeyvalue"]) expect(text, tool).not.toContain(secret);
      expect(text, tool).toContain("https://hooks.slack.com/***");
      expect(text, tool).toContain("./notify.sh");
    }
    await host.close();
    const shown = await runKeel(["config", "get", "hooks", "--show-secrets"], { cwd: ws.root, env: ws.env });
    expect(shown.stdout).toContain("webhookpathsecret");
  });

  it("tells secrets from the names of where they are kept", () => {
    expect(isSecretValue(["model", "apiKeyEnv"], "OPENAI_API_KEY")).toBe(false);
    expect(isSecretValue(["apiKeyHelper"], "~/bin/get-key.sh")).toBe(false);
    expect(isSecretValue(["tokenFile"], "/run/secrets/t")).toBe(false);
    expect(isSecretValue(["model", "maxOutputTokens"], 4096)).toBe(false);
    expect(isSecretValue(["sandbox", "credentials"], "visible")).toBe(false); // a choice of keel's, not a credential
    expect(isSecretValue(["permissions", "allow"], "bash(git status*)")).toBe(false);
    expect(isSecretValue(["x", "password"], "p")).toBe(true);
    expect(isSecretValue(["webhook"], "https://hooks.example.com/x?token=abc123")).toBe(true);
    expect(isSecretValue(["note"], "key: sk-abcdefghijklmnop1234")).toBe(true);
    expect(isSecretValue(["servers", "a", "headers", "X-Custom"], "anything")).toBe(true);
  });
});
