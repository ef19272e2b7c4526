import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { executedRuns } from "../../../core/executed-words.js";
import { changedPinnedFile, namedWorkspaceFiles } from "../../../core/file-digest.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { rewriteMidSession } from "../../helpers/rewrite-script.js";

const ECHO_SERVER = fileURLToPath(new URL("../../runtimes/mcp/fixtures/protocol-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: ws!.root, env: ws!.env });
const read = () => keel("call", "read_file", "--input", JSON.stringify({ path: "notes.txt" }));
const hookOn = (command: string) => ({ hooks: { PreToolUse: [{ matcher: "read_file", hooks: [{ type: "command", command }] }] } });
const warnings = async () => ((await keel("tools")).json().diagnostics as { message: string }[]).map((d) => d.message).join("\n");
const pkg = (scripts: Record<string, string>, version = "1.0.0") => ({ name: "x", scripts, dependencies: { lodash: version } });

describe("keel trust pins the package scripts, makefiles and redirected scripts a line runs", () => {
  it("a hook running `npm run` pins the script's text and the file it runs; a dependency bump is no change, a changed script is", async () => {
    ws = makeWorkspace(
      {
        "package.json": pkg({ mark: "node scripts/mark.js", premark: "true" }),
        "scripts/mark.js": "require('fs').writeFileSync('hook-ran', '')\n",
        ".claude/settings.json": hookOn("npm run --silent mark"),
        "notes.txt": "hello\n",
      },
      { git: true },
    );
    const trusted = await keel("trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "hook", files: ["package.json#scripts.mark", "scripts/mark.js"] })]);
    expect((await read()).json()).toMatchObject({ ok: true });
    expect(ws.exists("hook-ran")).toBe(true);

    // Other parts of package.json (a dependency, another script) are not the line's code: no review.
    ws.write("package.json", { ...pkg({ mark: "node scripts/mark.js", premark: "true", other: "rm -rf /" }, "2.0.0") });
    expect(await warnings()).not.toMatch(/was added or changed/);

    // The script itself, its pre script, or the file it runs: each waits for a review.
    for (const change of [
      () => ws!.write("package.json", pkg({ mark: "node scripts/mark.js && touch changed-ran", premark: "true" })),
      () => ws!.write("package.json", pkg({ mark: "node scripts/mark.js", premark: "touch changed-ran" })),
      () => ws!.write("scripts/mark.js", "require('fs').writeFileSync('changed-ran', '')\n"),
    ]) {
      change();
      expect(await warnings()).toMatch(/hook PreToolUse `npm run --silent mark` \(\.claude\/settings\.json\) was added or changed since/);
      expect((await read()).json()).toMatchObject({ ok: true });
      expect(ws.exists("changed-ran")).toBe(false);
      expect((await keel("trust")).exitCode).toBe(0);
    }
  });

  it("a hook whose package script a command of the same session rewrote is held back, naming the script", async () => {
    ws = makeWorkspace(
      {
        "package.json": pkg({ mark: "touch hook-ran" }),
        ".claude/settings.json": hookOn("npm run --silent mark"),
        "notes.txt": "hello\n",
        "script.json": rewriteMidSession("package.json", JSON.stringify(pkg({ mark: "touch rewritten-ran" }))),
      },
      { git: true },
    );
    expect((await keel("trust")).exitCode).toBe(0);
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.exists("hook-ran")).toBe(true);
    expect(ws.exists("rewritten-ran")).toBe(false);
    expect(r.stderr).toMatch(/PreToolUse hook `npm run --silent mark` .* did not run: package\.json#scripts\.mark changed since this workspace was trusted/);
  });

  it("an .npmrc or a nearer package.json a command of the session creates holds the `npm run` hook back", async () => {
    for (const [line, path, content] of [
      // npm reads the package folder's .npmrc when there: its script-shell runs every script.
      ["npm run --silent mark", ".npmrc", "script-shell=./evil.sh\n"],
      // From sub/, npm runs the nearest package.json's script.
      ["cd sub && npm run --silent mark", "sub/package.json", JSON.stringify(pkg({ mark: "touch ../evil-ran" }))],
    ]) {
      ws = makeWorkspace(
        {
          "package.json": pkg({ mark: "touch hook-ran" }),
          "evil.sh": "#!/bin/sh\ntouch evil-ran\n",
          "sub/notes.txt": "x\n",
          ".claude/settings.json": hookOn(line),
          "notes.txt": "hello\n",
          "script.json": rewriteMidSession(path, content),
        },
        { git: true },
      );
      chmodSync(join(ws.root, "evil.sh"), 0o755);
      expect((await keel("trust")).exitCode).toBe(0);
      const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(ws.exists("hook-ran"), line).toBe(true);
      expect(ws.exists("evil-ran"), line).toBe(false);
      expect(r.stderr).toMatch(/PreToolUse hook .* did not run: .* changed since this workspace was trusted/);
      ws.cleanup();
      ws = undefined;
    }
  });

  it("a hook running `make TARGET` pins the makefile and the scripts its recipes run", async () => {
    ws = makeWorkspace(
      {
        Makefile: "mark:\n\t@sh tools/mark.sh\n",
        "tools/mark.sh": "touch hook-ran\n",
        ".claude/settings.json": hookOn("make -s mark"),
        "notes.txt": "hello\n",
      },
      { git: true },
    );
    // GNU make reads GNUmakefile, then makefile, before Makefile: missing now, each is pinned as missing.
    expect((await keel("trust")).json().approved).toEqual([expect.objectContaining({ files: ["GNUmakefile", "makefile", "Makefile", "tools/mark.sh"] })]);
    expect((await read()).json()).toMatchObject({ ok: true });
    expect(ws.exists("hook-ran")).toBe(true);
    for (const [file, text] of [
      ["Makefile", "mark:\n\t@sh tools/mark.sh\n\t@touch changed-ran\n"],
      ["tools/mark.sh", "touch changed-ran\n"],
      ["GNUmakefile", "mark:\n\t@touch changed-ran\n"],
    ] as const) {
      ws.write(file, text);
      expect(await warnings()).toMatch(/hook PreToolUse `make -s mark` .* was added or changed since/);
      expect((await read()).json()).toMatchObject({ ok: true });
      expect(ws.exists("changed-ran")).toBe(false);
      expect((await keel("trust")).exitCode).toBe(0);
    }
  });

  it("a hook feeding a script to a shell (bash < x.sh, a here-document, cat x.sh | bash), or loading one through `env BASH_ENV=…`, pins it", async () => {
    for (const command of [
      "bash < .claude/hooks/mark.sh",
      "env BASH_ENV=.claude/hooks/mark.sh bash -c true",
      "BASH_ENV=.claude/hooks/mark.sh bash -c true",
      "export BASH_ENV=.claude/hooks/mark.sh; bash -c true",
      "bash <<'EOF'\nsh .claude/hooks/mark.sh\nEOF",
      "cat .claude/hooks/mark.sh | bash -s",
    ]) {
      ws = makeWorkspace({ ".claude/hooks/mark.sh": "touch hook-ran\n", ".claude/settings.json": hookOn(command), "notes.txt": "hello\n" }, { git: true });
      expect((await keel("trust")).json().approved, command).toEqual([expect.objectContaining({ files: [".claude/hooks/mark.sh"] })]);
      expect((await read()).json()).toMatchObject({ ok: true });
      expect(ws.exists("hook-ran"), command).toBe(true);
      ws.write(".claude/hooks/mark.sh", "touch changed-ran\n");
      expect((await read()).json()).toMatchObject({ ok: true });
      expect(ws.exists("changed-ran"), command).toBe(false);
      ws.cleanup();
    }
    ws = undefined;
  });

  it("a shell for package scripts set through npm's environment (npm_config_script_shell=…, on the line or in a server's env) is pinned", async () => {
    ws = makeWorkspace(
      {
        "package.json": pkg({ mark: "true" }),
        ".claude/hooks/sh.sh": '#!/bin/sh\ntouch hook-ran\nexec /bin/sh "$@"\n',
        ".claude/settings.json": hookOn("npm_config_script_shell=.claude/hooks/sh.sh npm run --silent mark"),
        "notes.txt": "hello\n",
      },
      { git: true },
    );
    chmodSync(join(ws.root, ".claude/hooks/sh.sh"), 0o755);
    expect((await keel("trust")).json().approved).toEqual([expect.objectContaining({ files: [".claude/hooks/sh.sh", "package.json#scripts.mark"] })]);
    expect((await read()).json()).toMatchObject({ ok: true });
    expect(ws.exists("hook-ran")).toBe(true);
    ws.write(".claude/hooks/sh.sh", '#!/bin/sh\ntouch changed-ran\nexec /bin/sh "$@"\n');
    expect((await read()).json()).toMatchObject({ ok: true });
    expect(ws.exists("changed-ran")).toBe(false);
    // A server's env is read as assignments before its command (any case npm accepts).
    const files = namedWorkspaceFiles([["NPM_CONFIG_SCRIPT_SHELL=.claude/hooks/sh.sh", "npm", "start"]], ws.root, ws.root, { bytes: Infinity });
    expect(files.map(([file]) => file)).toContain(".claude/hooks/sh.sh");
  });

  it("an MCP server started with `npm start` pins its start script and the server file it runs", async () => {
    ws = makeWorkspace(
      {
        "package.json": pkg({ start: "node server.mjs" }),
        "server.mjs": `import ${JSON.stringify(pathToFileURL(ECHO_SERVER).href)};\n`,
        ".mcp.json": { mcpServers: { a: { command: "npm", args: ["start", "--silent"] } } },
      },
      { git: true },
    );
    const trusted = await keel("trust");
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "mcp server", files: ["package.json#scripts.start", "server.mjs"] })]);
    const input = JSON.stringify({ pair: ["x", 1] });
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json()).toMatchObject({ ok: true });
    ws.write("package.json", pkg({ start: "node server.mjs" }, "3.0.0"));
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json()).toMatchObject({ ok: true });
    ws.write("package.json", pkg({ start: "touch changed-ran; node server.mjs" }));
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json().content).toMatch(/MCP server "a" \(\.mcp\.json\) was added or changed since/);
    expect(ws.exists("changed-ran")).toBe(false);
    // `keel trust`'s text review names the script.
    const text = await runKeel(["--yes", "trust"], { cwd: ws.root, env: ws.env });
    expect(text.stdout + text.stderr).toContain("package.json#scripts.start");
  });
});

describe("namedWorkspaceFiles: package scripts", () => {
  const names = (commands: string[][]) => namedWorkspaceFiles(commands, ws!.root, ws!.root, { bytes: Infinity }).map(([f]) => f);

  it("follows scripts that run other scripts and files, from the nearest package.json, a bounded depth deep", () => {
    ws = makeWorkspace({
      "package.json": pkg({ a: "npm run b && ./tools/a.sh", b: "yarn c", c: "pnpm run d", d: "bun run e", e: "node e.js", loop: "npm run loop" }),
      "tools/a.sh": "",
      "e.js": "",
      "web/package.json": pkg({ lint: "eslint . && node lint.js" }),
      "web/lint.js": "",
      "web/src/x": "",
    });
    expect(names([["npm", "run", "a"]])).toEqual([
      "package.json#scripts.a",
      "package.json#scripts.b",
      "package.json#scripts.c",
      "package.json#scripts.d",
      "e", // `bun run e` runs a file e when there is one: missing, pinned as missing
      "package.json#scripts.e",
      "tools/a.sh",
    ]);
    // Four scripts deep, then no further.
    expect(names([["npm", "run", "a"]])).not.toContain("e.js");
    expect(names([["npm", "run", "loop"]])).toEqual(["package.json#scripts.loop"]);
    expect(namedWorkspaceFiles([["npm", "run", "lint"]], ws.path("web/src"), ws.root, { bytes: Infinity }).map(([f]) => f)).toEqual([
      "web/package.json#scripts.lint",
      "web/lint.js",
    ]);
    expect(names([["npm", "--prefix", "web", "run", "lint"]])).toEqual(["web/package.json#scripts.lint", "web/lint.js"]);
  });

  it("a script run in packages named by package (npm -w NAME, --workspaces, pnpm -r, yarn workspace) pins it in every package declaring it", () => {
    ws = makeWorkspace({
      "package.json": { name: "root", workspaces: ["packages/*"], scripts: {} },
      "packages/a/package.json": { name: "@x/a", scripts: { lint: "node lint.js" } },
      "packages/a/lint.js": "",
      "packages/b/package.json": { name: "@x/b", scripts: { build: "tsc" } },
      "packages/c/package.json": { name: "@x/c", scripts: { prelint: "true" } },
      "other/d/package.json": { name: "d", scripts: { lint: "x" } },
    });
    const all = ["package.json#scripts.lint", "packages/a/package.json#scripts.lint", "packages/a/lint.js", "packages/c/package.json#scripts.lint"];
    for (const line of [
      "npm run lint -w @x/a",
      "npm run lint --workspaces",
      "pnpm -r lint",
      "pnpm --filter @x/a run lint",
      "yarn workspace @x/a lint",
      "yarn workspaces foreach -A run lint",
    ])
      expect(names([line.split(" ")]), line).toEqual(all);
    // Inside a package, from its folder.
    expect(namedWorkspaceFiles([["npm", "run", "lint"]], ws.path("packages/a"), ws.root, { bytes: Infinity }).map(([f]) => f)).toEqual([
      "packages/a/package.json#scripts.lint",
      "packages/a/lint.js",
    ]);
  });

  it('a package pattern is searched from its own folder: a package deep under a literal path is pinned, a "**" one too', () => {
    ws = makeWorkspace({
      "package.json": { name: "root", workspaces: ["tools/js/internal/libs/group/set/*", "apps/**"], scripts: {} },
      "tools/js/internal/libs/group/set/deep/package.json": { name: "deep", scripts: { lint: "true" } },
      "apps/web/site/package.json": { name: "site", scripts: { lint: "true" } },
      "other/x/package.json": { name: "x", scripts: { lint: "true" } },
    });
    // A pattern's folder that leads out of the repository is not searched.
    const outside = mkdtempSync(join(tmpdir(), "keel-outside-"));
    mkdirSync(join(outside, "p"));
    writeFileSync(join(outside, "p", "package.json"), JSON.stringify({ name: "p", scripts: { lint: "true" } }));
    symlinkSync(join(outside, "p"), ws.path("tools/js/internal/libs/group/set/link"));
    symlinkSync(outside, ws.path("ext"));
    ws.write("package.json", { name: "root", workspaces: ["tools/js/internal/libs/group/set/*", "apps/**", "ext/*"], scripts: {} });
    expect(names([["pnpm", "-r", "lint"]])).toEqual([
      "package.json#scripts.lint",
      "apps/web/site/package.json#scripts.lint",
      "tools/js/internal/libs/group/set/deep/package.json#scripts.lint",
    ]);
    rmSync(outside, { recursive: true, force: true });
  });

  it("a package script pins the code yarn loads on every command (yarnPath release, plugins, yarn 1's yarn-path) and .pnpmfile.cjs", () => {
    ws = makeWorkspace({
      "package.json": pkg({ lint: "true" }),
      ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.cjs\nplugins:\n  - path: .yarn/plugins/@yarnpkg/plugin-x.cjs\n    spec: x\n",
      ".yarn/releases/yarn-4.cjs": "",
      ".yarn/plugins/@yarnpkg/plugin-x.cjs": "",
      ".yarnrc": 'yarn-path ".yarn/releases/yarn-1.js"\n',
      ".yarn/releases/yarn-1.js": "",
      ".pnpmfile.cjs": "module.exports = {}\n",
    });
    expect(names([["yarn", "lint"]])).toEqual([
      "package.json#scripts.lint",
      ".yarnrc",
      ".yarnrc.yml",
      ".pnpmfile.cjs",
      ".yarn/releases/yarn-4.cjs",
      ".yarn/plugins/@yarnpkg/plugin-x.cjs",
      ".yarn/releases/yarn-1.js",
    ]);
  });

  it("pins a missing package.json, a missing script and an unparsable package.json stably, so the pin changes only when they do", () => {
    ws = makeWorkspace({});
    const pins = () => namedWorkspaceFiles([["npm", "test"]], ws!.root, ws!.root, { bytes: Infinity });
    expect(pins()).toEqual([["package.json#scripts.test", "unreadable (ENOENT)"]]);
    writeFileSync(ws.path("package.json"), "{ not json");
    expect(pins()).toEqual([["package.json#scripts.test", "not JSON"]]);
    expect(pins()).toEqual(pins());
    ws.write("package.json", pkg({}));
    const none = pins();
    expect(none[0]![1]).toMatch(/^sha256:/);
    ws.write("package.json", pkg({ build: "tsc" }, "9.9.9"));
    expect(changedPinnedFile(ws.root, none)).toBeUndefined();
    ws.write("package.json", pkg({ test: "vitest" }));
    expect(changedPinnedFile(ws.root, none)).toBe("package.json#scripts.test");
  });

  it("a hook running a script behind a pnpm option that takes no value (`--workspace-dir`) pins what pnpm runs: a changed script does not run silently", async () => {
    ws = makeWorkspace(
      {
        "package.json": pkg({ lint: "touch hook-ran", test: "true" }),
        // Stands in for pnpm, which reads `--workspace-dir` as taking no value: the first other word is the script it runs.
        "bin/pnpm": `#!/bin/sh\nwhile [ "\${1#-}" != "$1" ]; do shift; done\nexec node -e 'require("child_process").execSync(require("./package.json").scripts[process.argv[1]], { stdio: "inherit" })' "$1"\n`,
        ".claude/settings.json": { hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: "bin/pnpm --workspace-dir lint test" }] }] } },
      },
      { git: true },
    );
    chmodSync(join(ws.root, "bin/pnpm"), 0o755);
    const bash = () => keel("call", "bash", "--input", JSON.stringify({ command: "true" }));
    const trusted = await keel("trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    // pnpm's `--workspace-dir` is no option keel can read exactly: every script of the package is pinned.
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "hook", files: ["bin/pnpm", "package.json#scripts"] })]);
    expect((await bash()).json()).toMatchObject({ ok: true });
    expect(ws.exists("hook-ran")).toBe(true);

    ws.write("package.json", pkg({ lint: "touch changed-ran", test: "true" }));
    expect(await warnings()).toMatch(/hook PreToolUse `bin\/pnpm --workspace-dir lint test` \(\.claude\/settings\.json\) was added or changed since/);
    expect((await bash()).json()).toMatchObject({ ok: true });
    expect(ws.exists("changed-ran")).toBe(false);
  });

  it("package scripts behind pnpm, yarn, bun, npm and corepack options are read as the deny rules read the line, or all are pinned", () => {
    // `*`: keel cannot tell which script (every script of the package is pinned); `+`: in the packages of the monorepo too.
    const scripts = (line: string) => executedRuns(line.split(" ")).scripts.map((s) => `${s.dir ? `${s.dir}:` : ""}${s.name ?? "*"}${s.packages ? "+" : ""}`);
    for (const [line, want] of [
      // pnpm: nopt's types (pnpm-options.ts); an option keel cannot read before the script pins them all.
      ["pnpm --workspace-dir lint test", ["*"]],
      ["pnpm --frozen-lockfile true lint", ["lint"]],
      ["pnpm --store-dir x lint", ["lint"]],
      ["pnpm -w lint", ["lint+"]],
      ["pnpm -- lint", ["*"]],
      ["pnpm run $X", ["*"]],
      ["pnpm install-test", ["install", "prepare", "test"]],
      // yarn 1's options with a value, and its unknown ones as flags.
      ["yarn --use-yarnrc f lint", ["lint"]],
      ["yarn --otp 123 lint", ["lint"]],
      ["yarn --proxy p lint", ["lint"]],
      ["yarnpkg --otp 123 lint", ["lint"]],
      ["yarn $X", ["*"]],
      // bun's options are listed: another one pins all.
      ["bun --unknown lint", ["*"]],
      // corepack's `yarn@1`, `pnpm@9` are those managers.
      ["corepack yarn@1 --otp 1 lint", ["lint"]],
      ["corepack pnpm@9 --workspace-dir lint test", ["*"]],
      // npm reads options anywhere: after one whose value keel does not read, each `run` or lifecycle word may start it.
      ["npm --tag test run lint", ["test", "lint"]],
      ["npm run $X", ["*"]],
      ["npm --prefix $D run lint", ["*+"]],
    ] as const)
      expect(scripts(line), line).toEqual(want);
  });

  it("executedRuns: which lines run package scripts, makefiles, awk or sed programs, and code loaded by assignments after env", () => {
    const runs = (line: string) => executedRuns(line.split(" "));
    const scripts = (line: string) => runs(line).scripts.map((s) => (s.dir ? `${s.dir}:${s.name}` : s.name));
    expect(scripts("npm run lint -- --fix")).toEqual(["lint"]);
    expect(scripts("npm test")).toEqual(["test"]);
    expect(scripts("npm start")).toEqual(["start"]);
    expect(scripts("npm run-script x")).toEqual(["x"]);
    expect(scripts("npm run lint --prefix web")).toEqual(["web:lint"]);
    expect(scripts("npm ci")).toEqual(["install", "prepare"]);
    // Packing, publishing and versioning run scripts too (`npm pack --dry-run` runs prepack).
    expect(scripts("npm pack --dry-run")).toEqual(["prepack", "prepare", "postpack"]);
    expect(scripts("npm publish")).toEqual(["prepublishOnly", "prepack", "prepare", "postpack", "publish"]);
    expect(scripts("npm version patch")).toEqual(["version"]);
    expect(scripts("yarn pack")).toEqual(["prepack", "prepare", "postpack"]);
    expect(scripts("pnpm pack")).toEqual(["prepack", "prepare", "postpack"]);
    expect(scripts("yarn lint")).toEqual(["lint"]);
    expect(scripts("yarnpkg lint")).toEqual(["lint"]); // yarn's other name
    // A program named like an Object.prototype key is no package manager, interpreter or wrapper (each threw).
    for (const program of ["constructor", "valueOf", "toString"])
      expect(executedRuns([program, "-f", "x"])).toEqual({ files: [], scripts: [], runner: false, bun: false, dirs: [] });
    expect(scripts("yarn run lint")).toEqual(["lint"]);
    expect(scripts("yarn --cwd web lint")).toEqual(["web:lint"]);
    expect(scripts("pnpm lint")).toEqual(["lint"]);
    expect(scripts("pnpm -C web run lint")).toEqual(["web:lint"]);
    expect(scripts("bun run lint")).toEqual(["lint"]);
    expect(scripts("timeout 60 npm test")).toEqual(["test"]);
    // Through corepack or another runner.
    expect(scripts("corepack yarn lint")).toEqual(["lint"]);
    expect(scripts("corepack pnpm run lint")).toEqual(["lint"]);
    expect(scripts("npx yarn lint")).toEqual(["lint"]);
    expect(scripts("dotenv -- npm run lint")).toEqual(["lint"]);
    // An option whose value keel does not know cannot hide the script.
    expect(scripts("npm --color always run lint")).toEqual(["lint"]);
    // yarn 1 reads an option it does not know as a flag (as the deny rules do): `bar` is the script.
    expect(scripts("yarn --foo bar lint")).toEqual(["bar"]);
    // Runners and lines that run no script of the package keep their pins.
    for (const line of ["npx --no -- eslint .", "npm exec tsx x.ts", "pnpm dlx x", "yarn add x --dev", "bun x.ts", "bun run x.ts", "npm ls", "npm"])
      expect(scripts(line), line).toEqual(line === "yarn add x --dev" ? ["install", "prepare"] : []);
    expect(runs("bun run x.ts").files).toEqual(["x.ts"]);
    expect(runs("npx -y tsx x.ts").files).toEqual(["x.ts"]);
    expect(runs("npm run --script-shell ./sh.sh lint").files).toEqual(["./sh.sh"]);
    expect(runs("make lint").files).toEqual(["GNUmakefile", "makefile", "Makefile"]);
    expect(runs("make -C sub -f build.mk x").files).toEqual(["sub/build.mk"]);
    expect(runs("make --directory=sub -j 4 x").files).toEqual(["sub/GNUmakefile", "sub/makefile", "sub/Makefile"]);
    expect(runs("awk -f prog.awk data.txt").files).toEqual(["prog.awk"]);
    expect(runs("awk {print} data.txt").files).toEqual([]);
    expect(runs("sed -f script.sed -i x.txt").files).toEqual(["script.sed"]);
    expect(runs("env NODE_OPTIONS=--require=./x.js node y.js").files).toEqual(["./x.js", "y.js"]);
    expect(runs("env BASH_ENV=./x.sh bash -c true").files).toEqual(["./x.sh"]);
    expect(runs("cross-env NODE_ENV=production ./tools/x.sh").files).toEqual(["./tools/x.sh"]);
    expect(runs("source ./env.sh").files).toEqual(["./env.sh"]);
    expect(runs(". ./env.sh").files).toEqual(["./env.sh"]);
    expect(runs("bash - x.sh").files).toEqual(["x.sh"]);
    expect(runs("perl -w script.pl").files).toEqual(["script.pl"]);
    expect(runs("ruby x.rb").files).toEqual(["x.rb"]);
    expect(runs("php x.php").files).toEqual(["x.php"]);
    expect(runs("deno run x.ts").files).toEqual(["x.ts"]);
    expect(runs("bun x.ts").files).toEqual(["x.ts"]);
  });
});
