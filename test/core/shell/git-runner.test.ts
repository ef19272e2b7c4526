import * as unbash from "unbash";
import { afterEach, describe, expect, it } from "vitest";
import { analyzeShell } from "../../../core/shell/shell-analysis.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { decide, policy } from "../../helpers/shell-policy.js";

describe("git running commands from its settings and environment", () => {
  const deny = policy({ deny: ["bash(rm *)"] });

  it("deny rules see what git's settings, aliases and variables run through sh", () => {
    for (const command of [
      "git -c core.pager='rm -rf x' log",
      "git -c core.editor='rm x' commit",
      "git -c sequence.editor='rm x' rebase -i HEAD~2",
      "git -c core.sshCommand='rm x' fetch",
      "git -c pager.log='rm x' log",
      "git -c Core.Pager='rm x' log",
      "git -C dir -c diff.external='rm x' diff",
      "git -c alias.x='!rm x' x",
      "git -c alias.x='!rm' x -rf y",
      "git -c alias.x='-c core.pager=\"rm x\" log' x",
      "GIT_PAGER='rm x' git log",
      "GIT_EDITOR='rm x' git commit",
      "GIT_SSH_COMMAND='rm x' git fetch",
      "GIT_EXTERNAL_DIFF='rm x' git diff",
      "PAGER='rm x' git log",
      "EDITOR='rm x' git commit",
      "VISUAL='rm x' crontab -e",
      "env GIT_PAGER='rm x' git log",
      "export GIT_PAGER='rm x'; git log",
      "GIT_SSH=rm git fetch",
      "EDITOR=rm git commit",
      "git -c core.editor=rm commit",
      "git -c uploadpack.packObjectsHook=rm fetch",
      "git -c core.sshCommand='ssh -i k; rm x' fetch",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
  });

  it("deny rules see the command git subcommands run: rebase --exec, bisect run, submodule foreach, difftool -x, filter-branch, --upload-pack", () => {
    for (const command of [
      "git rebase --exec 'rm x' HEAD~2",
      "git rebase -x 'rm x' main",
      "git rebase -ix'rm x' main",
      "git rebase --exe='rm x' main",
      "git bisect run rm x",
      "git submodule foreach 'rm x'",
      "git submodule --quiet foreach --recursive rm x",
      "git difftool -x 'rm x' HEAD",
      "git difftool --extcmd='rm x'",
      "git filter-branch --tree-filter 'rm x' HEAD",
      "git fetch --upload-pack='rm x' ../r",
      "git clone -u 'rm x' ../r d",
      "git push --receive-pack='rm x' ../r",
      "git send-email --to-cmd='rm x' p.patch",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    expect(decide(deny, 'git rebase "$OPT" main')).toMatchObject({ action: "deny", reason: expect.stringContaining("could be an option") });
    for (const command of ["git rebase -i main", "git rebase main", "git fetch origin", "git bisect start", 'git rebase -- "$X"'])
      expect(decide(deny, command).action, command).toBe("ask");
  });

  it("settings that run or load other code fail closed", () => {
    for (const command of [
      "git -c core.fsmonitor=./x status",
      "git -c core.hooksPath=hooks commit -m m",
      "git -c diff.d.textconv='rm x' diff",
      "git -c filter.f.clean='rm x' add .",
      "git -c filter.f.process=x add .",
      "git -c credential.helper='!rm x' fetch",
      "git -c gpg.program=./x commit -S -m m",
      "git -c gpg.ssh.program=./x commit -S -m m",
      "git -c merge.m.driver='rm x' merge b",
      "git -c core.askPass=./x fetch",
      "git -c include.path=./evil.cfg log",
      "git -c includeIf.onbranch:main.path=./evil.cfg log",
      "git -c protocol.ext.allow=always clone 'ext::sh -c x' d",
      "git -c init.templateDir=./t clone u d",
      "git -c submodule.s.update='!rm x' submodule update",
      "git -c 'odd key=1' log",
      "git --config-env=core.pager=P log",
      "git --exec-path=./bin log",
      'git -c "$S" log',
      "git -c alias.a=b -c alias.b='!x' a",
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm x' git log",
      "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm x'\" git log",
      "GIT_CONFIG_GLOBAL=./evil git log",
      'GIT_PAGER="$P" git log',
      "GIT_ASKPASS='./x; rm y' git fetch",
      "read -r EDITOR; git commit",
      "printf -v PAGER %s x; git log",
      "git --bogus log",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", reason: expect.stringMatching(/cannot check|not literal|keel does not know/) });
  });

  it("leaves ordinary settings and variables alone", () => {
    for (const command of [
      "git -c user.name=x -c user.email=x@y commit -m m",
      "git -c color.ui=always log",
      "git -c pager.log=false log",
      "git -c protocol.version=2 fetch",
      "git --no-pager -C dir log --oneline",
      "git -c alias.x='!rm x' status",
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=x git commit -m m",
      "PAGER=less git log",
      "GIT_SSH_COMMAND='ssh -i key' git fetch",
      "git -c core.sshCommand='ssh -i k -o IdentitiesOnly=yes' fetch",
      "EDITOR=vim git commit",
      "printf '%s\\n' PAGER EDITOR",
      "env -u EDITOR git commit",
      "export EDITOR=vim; git commit",
      "git log -p",
    ])
      expect(decide(deny, command).action, command).toBe("ask");
    const allow = policy({ allow: ["bash(git *)"] });
    expect(decide(allow, "git -c user.name=x commit -m m").action).toBe("allow");
    expect(decide(allow, "git -c color.ui=always log").action).toBe("allow");
    expect(decide(allow, "git -c core.pager='rm x' log").action).toBe("ask");
  });

  it("reads nested settings and aliases in linear work: each level is analysed once", () => {
    const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
    let line = "rm y";
    for (let level = 0; level < 6; level++) line = level % 2 ? `git -c core.pager=${quote(line)} log` : `git -c alias.x=${quote(`!${line}`)} x`;
    const analysis = analyzeShell(line, unbash);
    expect(analysis.unresolved).toEqual([]);
    expect(analysis.commands.map((c) => c.argv.join(" "))).toContain("rm y");
    // Each alias level is also `git-x` (a program git tries first).
    expect(analysis.commands.length).toBeLessThanOrEqual(10);
    expect(decide(deny, line)).toMatchObject({ action: "deny", rule: "bash(rm *)" });
  });
});

describe("keel call bash with git settings", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.cleanup());

  it("a user deny rule stops `git -c alias.x='!rm victim' x` `-c core.sshCommand=…` and `GIT_SSH_COMMAND=…` even with --yes (each ran before)", async () => {
    ws = makeWorkspace({ victim: "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    for (const command of [
      "git -c alias.x='!rm victim' x",
      "git -c core.sshCommand='rm victim' ls-remote ssh://h/r",
      "GIT_SSH_COMMAND='rm victim' git ls-remote ssh://h/r",
    ]) {
      const r = await runKeel(["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env: ws.env });
      expect(r.json(), command).toMatchObject({ ok: false, code: "permission_denied", content: expect.stringContaining("bash(rm *)") });
      expect(ws.exists("victim"), command).toBe(true);
    }
  });
});
