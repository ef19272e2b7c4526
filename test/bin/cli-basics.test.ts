import { execa } from "execa";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

async function hasShell(shell: string): Promise<boolean> {
  const r = await execa(shell, ["-c", "exit 0"], { reject: false });
  return r.exitCode === 0;
}

/** A copy of the built executable (bin/keel.js, dist/ as the package ships it, package.json) at `copy`, using the checkout's node_modules. */
function copyBuiltKeel(copy: string): string {
  const repo = new URL("../../", import.meta.url);
  const dist = fileURLToPath(new URL("dist", repo));
  const shipped = (file: string) => !/\.(map|tsbuildinfo)$/.test(file) && !/^(bench|examples)$/.test(relative(dist, file));
  mkdirSync(join(copy, "bin"), { recursive: true });
  cpSync(new URL("bin/keel.js", repo), join(copy, "bin", "keel.js"));
  cpSync(dist, join(copy, "dist"), { recursive: true, filter: shipped });
  symlinkSync(fileURLToPath(new URL("node_modules", repo)), join(copy, "node_modules"));
  cpSync(new URL("package.json", repo), join(copy, "package.json"));
  return copy;
}

describe("CLI basics: --version, init, completion", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("--version and -V print package.json's version and exit 0 (also as a real process)", async () => {
    ws = makeWorkspace();
    const long = await runKeel(["--version"], { cwd: ws.root, env: ws.env });
    expect(long).toMatchObject({ exitCode: 0, stdout: pkg.version });
    const short = await runKeelProcess(["-V"], { cwd: ws.root, env: ws.env });
    expect(short).toMatchObject({ exitCode: 0, stdout: pkg.version });
  });

  it("--version reads a package.json saved with a byte order mark (a Windows editor's) as keel's own", async () => {
    ws = makeWorkspace();
    // a copy of the built CLI whose package.json starts with a BOM; its npm packages are the checkout's
    const copy = copyBuiltKeel(ws.path("keel-copy"));
    writeFileSync(join(copy, "package.json"), `\ufeff${readFileSync(new URL("../../package.json", import.meta.url), "utf8")}`);
    // bin/keel.js runs the bundle when it is not older than the tsc output: make that output older for sure (a copy's
    // mtime has nanoseconds, a `new Date()` only milliseconds, so "now" could be older than a copy made in the same ms)
    utimesSync(join(copy, "dist", "bin", "cli.js"), 0, 0);
    const r = await execa(process.execPath, [join(copy, "bin", "keel.js"), "--version"], { cwd: ws.root, env: ws.env, reject: false });
    expect({ exitCode: r.exitCode, stdout: r.stdout }, r.stderr).toEqual({ exitCode: 0, stdout: pkg.version }); // old code: "unknown"
  });

  it("bin/keel.js runs the tsc output, not the bundle, after an incremental tsc that left dist/bin/cli.js as it was", async () => {
    ws = makeWorkspace();
    const copy = copyBuiltKeel(ws.path("keel-copy"));
    // An edit of another module, compiled by a bare incremental `tsc`: that module's output and tsc's build state are
    // rewritten, dist/bin/cli.js is not (tsc emits only what the change touched), and the bundle holds the old code.
    writeFileSync(join(copy, "dist", "bin", "keel-version.js"), 'export function keelVersion() { return "edited"; }\n');
    const [tsc, bundle, edit] = [1_000_000, 2_000_000, 3_000_000];
    utimesSync(join(copy, "dist", "bin", "cli.js"), tsc, tsc);
    for (const file of readdirSync(join(copy, "dist", "cli"), { recursive: true, encoding: "utf8" }))
      utimesSync(join(copy, "dist", "cli", file), bundle, bundle);
    writeFileSync(join(copy, "dist", ".tsbuildinfo"), "{}");
    utimesSync(join(copy, "dist", "bin", "keel-version.js"), edit, edit);
    utimesSync(join(copy, "dist", ".tsbuildinfo"), edit, edit);
    const version = async () => (await execa(process.execPath, [join(copy, "bin", "keel.js"), "--version"], { cwd: ws!.root, env: ws!.env })).stdout;
    expect(await version()).toBe("edited"); // old code: the bundle's package version
    // Bundled again after that build (npm run build): the bundle runs.
    utimesSync(join(copy, "dist", ".tsbuildinfo"), tsc, tsc);
    expect(await version()).toBe(pkg.version);
  });

  it("init writes the starter files, valid for keel's own loaders; a second run changes nothing", async () => {
    ws = makeWorkspace({}, { git: true });
    const first = await runKeel(["--json", "init"], { cwd: ws.root, env: ws.env });
    expect(first.exitCode).toBe(0);
    const files = first.json().files as { path: string; status: string }[];
    expect(files.map((f) => f.path)).toEqual(["keel.config.json", "plugins/example/plugin.json", ".mcp.json", "AGENTS.md", ".keel/.gitignore"]);
    expect(files.every((f) => f.status === "created")).toBe(true);
    const snapshot = Object.fromEntries(files.map((f) => [f.path, ws!.read(f.path)]));
    // The notes in keel.config.json are "$comment" keys: it stays strict JSON.
    expect(JSON.parse(snapshot["keel.config.json"]!).$comment).toMatch(/keel init/);

    const second = await runKeel(["init"], { cwd: ws.root, env: ws.env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toMatch(/Nothing to do/);
    for (const f of files) expect(ws.read(f.path)).toBe(snapshot[f.path]);
    expect(second.stdout.match(/kept/g)).toHaveLength(5);

    // Untrusted and trusted, keel's loaders read every file without an error or a warning.
    for (const trust of [[], ["--trust"]]) {
      const plugins = await runKeel([...trust, "--json", "plugins"], { cwd: ws.root, env: ws.env });
      expect(plugins.exitCode).toBe(0);
      expect(plugins.json().plugins.map((p: { name: string }) => p.name)).toEqual(["example"]);
      expect(plugins.json().diagnostics).toEqual([]);
      const mcp = await runKeel([...trust, "--json", "mcp", "list"], { cwd: ws.root, env: ws.env });
      expect(mcp.exitCode).toBe(0);
      expect(mcp.json().servers).toMatchObject([{ name: "everything", state: "disabled" }]);
      expect(mcp.json().diagnostics).toEqual([]);
      const tools = await runKeel([...trust, "--json", "tools"], { cwd: ws.root, env: ws.env });
      expect(tools.json().diagnostics).toEqual([]);
      const context = await runKeel([...trust, "--json", "context"], { cwd: ws.root, env: ws.env });
      expect(context.exitCode).toBe(0);
      expect(context.json().instructions.files.map((f: { path: string }) => f.path)).toContain("AGENTS.md");
    }
    const hello = await runKeel(["call", "example_hello", "--input", '{"name":"Ada"}'], { cwd: ws.root, env: ws.env });
    expect(hello).toMatchObject({ exitCode: 0, stdout: "Hello Ada, from the example plugin!" });
    // .keel/ stays out of git; the files you author show up.
    expect(ws.git("status", "--short", "--untracked-files=all")).not.toContain(".keel");
  });

  it("init keeps an existing file untouched and creates the others", async () => {
    ws = makeWorkspace({ "AGENTS.md": "mine\n" });
    const r = await runKeel(["--json", "init"], { cwd: ws.root, env: ws.env });
    expect(r.json().files.find((f: { path: string }) => f.path === "AGENTS.md").status).toBe("kept");
    expect(ws.read("AGENTS.md")).toBe("mine\n");
    expect(ws.exists(".mcp.json")).toBe(true);
  });

  it("init writes nothing through a link a repository planted at a starter folder: those files are refused, the others created (exit 1)", async () => {
    ws = makeWorkspace({}, { git: true });
    const plugins = join(ws.keelHome, "plugins");
    mkdirSync(plugins, { recursive: true });
    symlinkSync(plugins, ws.path("plugins"));
    symlinkSync(ws.keelHome, ws.path(".keel"));
    const r = await runKeel(["--json", "init"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(1);
    const status = Object.fromEntries(r.json().files.map((f: { path: string; status: string }) => [f.path, f.status]));
    expect(status).toEqual({
      "keel.config.json": "created",
      "plugins/example/plugin.json": "refused",
      ".mcp.json": "created",
      "AGENTS.md": "created",
      ".keel/.gitignore": "refused",
    });
    expect(readdirSync(plugins)).toEqual([]);
    expect(existsSync(join(ws.keelHome, ".gitignore"))).toBe(false);
    const human = await runKeel(["init"], { cwd: ws.root, env: ws.env });
    expect(human.exitCode).toBe(1);
    expect(human.stdout).toContain("refused plugins/example/plugin.json  Cannot write plugins/example/plugin.json: plugins is not a folder (a link or a file)");
    expect(human.stdout).toContain("then run `keel init` again");
  });

  it("completion bash is generated from the command tree and is valid bash that completes subcommands and option values", async () => {
    ws = makeWorkspace();
    const r = await runKeel(["completion", "bash"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    for (const word of ["'task list'", "'mcp doctor'", "'worktree exit|--action'", "--input-file", "doctor", "init", "completion"])
      expect(r.stdout).toContain(word);
    const script = ws.write("keel.bash", r.stdout + "\n");
    expect((await execa("bash", ["-n", script], { reject: false })).exitCode).toBe(0);
    const probe = `source ${script}
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _keel_completion; echo "\${COMPREPLY[*]}"; }
complete_words keel task ""
complete_words keel --cwd /tmp wor
complete_words keel task list --status in
complete_words keel completion ""`;
    const out = (await execa("bash", ["-c", probe])).stdout.split("\n");
    expect(out[0]).toBe("list show next add start done block cancel");
    expect(out[1]).toBe("worktree workflow");
    expect(out[2]).toBe("in_progress");
    expect(out[3]).toBe("bash zsh fish");
  });

  it("completion zsh and fish name every command; zsh parses (when installed); an unknown shell is a usage error", async () => {
    ws = makeWorkspace();
    const zsh = await runKeel(["completion", "zsh"], { cwd: ws.root, env: ws.env });
    expect(zsh.stdout.startsWith("#compdef keel")).toBe(true);
    expect(zsh.stdout).toContain("'list:List discovered workflows'");
    if (await hasShell("zsh")) {
      const file = ws.write("_keel", zsh.stdout);
      expect((await execa("zsh", ["-n", file], { reject: false })).exitCode).toBe(0);
      // zsh's completion builtins need a line editor: stand-ins print what _keel offers.
      const probe = `compdef() { : }
source ${file}
_describe() { local n=\${@[-1]}; print -r -- "\${(j: :)\${(@P)n}}" }
compadd() { local n=\${@[-1]}; print -r -- "\${(j: :)\${(@P)n}}" }
_files() { print files }
words=(keel --cwd /tmp task ""); CURRENT=5; PREFIX=""; _keel
words=(keel task list --status ""); CURRENT=5; PREFIX=""; _keel`;
      const out = (await execa("zsh", ["-c", probe])).stdout.split("\n");
      expect(out[0]).toMatch(/^list:List tasks show:Show one task /);
      expect(out[1]).toBe("pending todo open in_progress completed done complete blocked cancelled");
    }
    const fish = await runKeel(["completion", "fish"], { cwd: ws.root, env: ws.env });
    expect(fish.stdout).toContain("complete -c keel -n '__keel_at '\\'''\\''' -a 'doctor'");
    expect(fish.stdout).toContain("-l 'status' -x -a 'pending todo open in_progress completed done complete blocked cancelled'");
    if (await hasShell("fish")) {
      const file = ws.write("keel.fish", fish.stdout);
      expect((await execa("fish", ["-n", file], { reject: false })).exitCode).toBe(0);
      const out = (await execa("fish", ["-c", `source ${file}; complete -C "keel --cwd /tmp wor"; complete -C "keel worktree exit --action "`])).stdout;
      expect(out.split("\n").map((l) => l.split("\t")[0])).toEqual(["workflow", "worktree", "discard", "keep", "merge"]);
    }
    const bad = await runKeel(["completion", "pwsh"], { cwd: ws.root, env: ws.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("Allowed choices are bash, zsh, fish");
  });
});
