import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** `keel --yes call bash` with the user's deny rule `bash(rm *)`: the observation. */
async function run(command: string) {
  const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws!.root, env: ws!.env });
  return r.json();
}

describe("deny rules on bash reach what the command runs (real CLI)", () => {
  it("`… | xargs rm` meets `bash(rm *)`: xargs appends the words it reads", async () => {
    ws = makeWorkspace({ "victim.txt": "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    for (const command of ["echo victim.txt | xargs rm", "echo victim.txt | xargs -0 /bin/rm", "xargs -a list.txt rm", "ls | xargs -n1 -P2 rm"]) {
      const obs = await run(command);
      expect(obs, command).toMatchObject({ ok: false, code: "permission_denied" });
      expect(obs.content).toContain('deny rule "bash(rm *)"');
    }
    expect(ws.read("victim.txt")).toBe("keep me\n");
    // Other commands through xargs still run.
    expect(await run("echo victim.txt | xargs cat")).toMatchObject({ ok: true, content: expect.stringContaining("keep me") });
  });
});

describe("deny rules reach scripts bash runs later (real CLI)", () => {
  it("a literal `trap` action is checked like `eval`; rbash -c like bash -c", async () => {
    ws = makeWorkspace({ "victim.txt": "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    for (const command of [
      "trap 'rm victim.txt' EXIT",
      "trap -- 'rm victim.txt' EXIT INT",
      "bash -c \"trap 'rm victim.txt' EXIT\"",
      "rbash -c 'rm victim.txt'",
    ]) {
      const obs = await run(command);
      expect(obs, command).toMatchObject({ ok: false, code: "permission_denied" });
      expect(obs.content).toContain('deny rule "bash(rm *)"');
    }
    const dynamic = await run('trap "$CLEANUP" EXIT');
    expect(dynamic).toMatchObject({ ok: false, code: "permission_denied" });
    expect(dynamic.content).toContain("`trap` with an action that is not literal");
    expect(ws.read("victim.txt")).toBe("keep me\n");
    expect(await run("trap 'echo bye' EXIT; trap -p; trap - EXIT; echo ok")).toMatchObject({ ok: true });
  });
});

describe("wrapper options are read as getopt reads them (real CLI)", () => {
  it("a cluster, an abbreviated long option or an attached `env -S` string cannot hide the command from `bash(rm *)`", async () => {
    ws = makeWorkspace({ "victim.txt": "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    for (const command of [
      "env -S'rm victim.txt'",
      "env --split-string 'rm victim.txt'",
      "env -iu HOME rm victim.txt",
      "timeout --sig KILL 5 rm victim.txt",
      "exec -ca name rm victim.txt",
      "nice --adj 5 rm victim.txt",
      "busybox rm victim.txt",
    ]) {
      const obs = await run(command);
      expect(obs, command).toMatchObject({ ok: false, code: "permission_denied" });
      expect(obs.content).toContain('deny rule "bash(rm *)"');
    }
    expect(ws.read("victim.txt")).toBe("keep me\n");
    expect(await run("env -i cat victim.txt")).toMatchObject({ ok: true, content: expect.stringContaining("keep me") });
  });
});

describe("strings bash runs later are checked too (real CLI)", () => {
  it("an allow rule for `printf` or `test` does not run what a subscript in its words substitutes", async () => {
    ws = makeWorkspace({ "victim.txt": "keep me\n" });
    ws.writeUserConfig({ permissions: { allow: ["bash(printf *)", "bash(test *)"] } });
    for (const command of ["printf -v 'a[$(touch pwned)]' x", "test -v 'a[`touch pwned`]'"]) {
      const r = await runKeel(["--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env: ws.env });
      expect(r.json(), command).toMatchObject({ ok: false, code: "approval_required" });
    }
    expect(ws.exists("pwned")).toBe(false);
    const plain = await runKeel(["--json", "call", "bash", "--input", JSON.stringify({ command: "printf -v 'a[1]' '%s' x" })], { cwd: ws.root, env: ws.env });
    expect(plain.json()).toMatchObject({ ok: true });
  });

  it("`bash(rm *)` meets an `rm` in a subscript, an alias, `hash -p` or `BASH_ENV`", async () => {
    ws = makeWorkspace({ "victim.txt": "keep me\n", "setup.sh": "rm victim.txt\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    for (const command of [
      "declare 'a[$(rm victim.txt)]=1'",
      "x='a[$(rm victim.txt)]'; echo $((x))",
      "PS4='$(rm victim.txt)'; set -x; true",
      "shopt -s expand_aliases\nalias ls='rm'\nls victim.txt",
      "hash -p /bin/rm ls; ls victim.txt",
      "BASH_ENV=./setup.sh bash -c true",
    ]) {
      const obs = await run(command);
      expect(obs, command).toMatchObject({ ok: false, code: "permission_denied" });
    }
    expect(ws.read("victim.txt")).toBe("keep me\n");
  });
});

describe("commands that come from what find or xargs read (real CLI)", () => {
  it("`find -exec {}`, `xargs -I% sh -c %`, `xargs env` and an exported function fail closed under `bash(rm *)`", async () => {
    ws = makeWorkspace({ "victim.txt": "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    for (const command of [
      "find /usr/bin -maxdepth 1 -name rm -exec {} victim.txt \\;",
      "echo 'rm victim.txt' | xargs -I% sh -c %",
      "echo rm victim.txt | xargs env",
      "env 'BASH_FUNC_ls%%=() { rm victim.txt; }' bash -c ls",
    ]) {
      const obs = await run(command);
      expect(obs, command).toMatchObject({ ok: false, code: "permission_denied" });
      expect(obs.content).toContain("cannot check statically");
    }
    expect(ws.read("victim.txt")).toBe("keep me\n");
    expect(await run("find . -name victim.txt -exec cat {} \\;")).toMatchObject({ ok: true, content: expect.stringContaining("keep me") });
  });
});
