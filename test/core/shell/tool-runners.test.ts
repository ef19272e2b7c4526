import * as unbash from "unbash";
import { afterEach, describe, expect, it } from "vitest";
import { analyzeShell } from "../../../core/shell/shell-analysis.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { decide, policy } from "../../helpers/shell-policy.js";

describe("rsync, docker compose and Python package runners run commands", () => {
  const deny = policy({ deny: ["bash(rm *)", "bash(ruff *)"] });

  it("deny rules see rsync's -e/--rsh (local) and --rsync-path (remote) commands", () => {
    for (const command of [
      "rsync -e 'rm x' a h:b",
      "rsync -avze 'rm x' a h:b",
      "rsync -av -e'rm x' a h:b",
      "rsync --rsh='rm x' a h:b",
      "rsync --rsh 'rm x' a h:b",
      "rsync a h:b --rsh='rm x'",
      "rsync --rsync-path='rm x; rsync' a h:b",
      "rsync --rsync-path 'rm x' a h:b",
      "rsync -e 'ssh -p 22; rm x' a h:b",
      "RSYNC_RSH='rm x' rsync a h:b",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    for (const command of ['rsync -e "$SSH" a h:b', 'rsync -av "$OPTS" a h:b', "rsync -e 'ssh -o ProxyCommand=x' a h:b"])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", reason: expect.stringMatching(/not literal|cannot check/) });
    for (const command of ["rsync -av a h:b", "rsync -e ssh a h:b", 'rsync -av -- "$SRC" h:b', "rsync --exclude='*.o' -av a/ b/"])
      expect(decide(deny, command).action, command).toBe("ask");
  });

  it("deny rules see the command `docker compose run|exec`, `docker-compose` and `podman compose` run in a service", () => {
    for (const command of [
      "docker compose exec web rm x",
      "docker compose -f c.yml exec -T -u root web rm x",
      "docker compose run --rm web rm x",
      "docker compose run --rm -e A=1 --entrypoint 'rm -rf' web x",
      "docker --context c compose -p p run web sh -c 'rm x'",
      "docker-compose exec web rm x",
      "docker-compose run -T web rm x",
      "podman compose exec web rm x",
      "podman-compose run web rm x",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    for (const command of ["docker compose run --bogus web ls", "docker compose --bogus exec web ls", "docker compose exec $S ls"])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", reason: expect.stringMatching(/keel does not know|may expand to several/) });
    for (const command of ["docker compose up -d", "docker compose exec web ls", "docker compose run web", "docker-compose ps"])
      expect(decide(deny, command).action, command).toBe("ask");
  });

  it("uvx, uv tool run and pipx run run the package's program; uv run runs its command", () => {
    for (const command of [
      "uvx ruff check .",
      "uvx ruff@0.5 check .",
      "uvx 'ruff==0.5' check .",
      "uvx --python 3.12 ruff check .",
      "uvx --from ruff-lsp ruff check",
      "uv tool run ruff check",
      "uv -q tool run ruff check",
      "pipx run ruff check",
      "pipx run --spec ruff==0.5 ruff check",
      "uv run ruff check",
      "uv run --with x -- ruff check",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(ruff *)" });
    for (const command of ["uv run rm x", "uv --directory d run rm x", "uvx --from x rm y", "uv run sh -c 'rm x'"])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    expect(decide(deny, "uvx --bogus ruff x")).toMatchObject({ action: "deny", reason: expect.stringContaining("keel does not know") });
    for (const command of ["uv sync", "uv pip install x", "pipx install ruff", "uvx black .", "uv run pytest", "uv run -m pytest"])
      expect(decide(deny, command).action, command).toBe("ask");
    const allow = policy({ allow: ["bash(uvx black *)", "bash(uv run pytest *)"] });
    expect(decide(allow, "uvx black .").action).toBe("allow");
    expect(decide(allow, "uv run pytest -q").action).toBe("allow");
  });

  it("reads chains of these in linear work", () => {
    for (const chain of [`${"uvx --from x ".repeat(40)}rm y`, `${"docker compose exec w ".repeat(40)}rm y`, `${"uv run ".repeat(40)}rm y`]) {
      const analysis = analyzeShell(chain, unbash);
      expect(analysis.commands.length, chain).toBeLessThan(60);
      expect(analysis.unresolved.join(), chain).toMatch(/nested more than 8 levels deep/);
    }
  });
});

describe("keel call bash through rsync, docker compose and uvx", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.cleanup());

  it("a user deny rule stops them even with --yes (none was denied before)", async () => {
    ws = makeWorkspace({ victim: "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    for (const command of [
      "rsync -e 'rm victim' a h:b",
      "docker compose exec web rm victim",
      "uvx --from x rm victim",
      "uv run rm victim",
      "pipx run --spec x rm victim",
    ]) {
      const r = await runKeel(["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env: ws.env });
      expect(r.json(), command).toMatchObject({ ok: false, code: "permission_denied", content: expect.stringContaining("bash(rm *)") });
      expect(ws.exists("victim"), command).toBe(true);
    }
  });
});
