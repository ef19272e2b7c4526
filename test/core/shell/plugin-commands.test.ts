import * as unbash from "unbash";
import { describe, expect, it } from "vitest";
import { analyzeShell } from "../../../core/shell/shell-analysis.js";
import { decide, policy } from "../../helpers/shell-policy.js";

describe("kubectl plugins and git's dashed commands", () => {
  const deny = policy({ deny: ["bash(kubectl-foo *)", "bash(kubectl-foo_bar *)", "bash(kubectl-create-thing *)", "bash(git-foo *)"] });

  it("`kubectl foo …` (foo not a kubectl command) runs the plugin `kubectl-foo`, or a longer one named by the words after it", () => {
    const cases: [string, string][] = [
      ["kubectl foo x", "bash(kubectl-foo *)"],
      ["kubectl foo --all -n x", "bash(kubectl-foo *)"],
      ["kubectl foo-bar pods", "bash(kubectl-foo_bar *)"],
      ["/usr/bin/kubectl foo get pods", "bash(kubectl-foo *)"],
      ["kubectl create thing x", "bash(kubectl-create-thing *)"],
    ];
    for (const [command, rule] of cases) expect(decide(deny, command), command).toMatchObject({ action: "deny", rule });
    // `kubectl a b c` runs the longest of `kubectl-a-b-c`, `kubectl-a-b`, `kubectl-a` on PATH: each is reported.
    const forms = analyzeShell("kubectl a b -x c", unbash).commands.map((c) => c.argv.join(" "));
    expect(forms).toEqual(["kubectl a b -x c", "kubectl-a b -x c", "kubectl-a-b -x c"]);
    for (const command of ['kubectl "$P" x', "kubectl foo $X", 'kubectl create "$K" x', `kubectl p ${"w ".repeat(20)}`])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", reason: expect.stringMatching(/not literal|may name a plugin/) });
  });

  it("kubectl's own commands, `create` kinds and options first name no plugin", () => {
    for (const command of [
      "kubectl get pods",
      "kubectl -n x foo",
      "kubectl create deployment web --image=x",
      "kubectl create ns x",
      "kubectl create -f x.yaml",
      "kubectl exec p -- ls",
      "kubectl help foo",
      "kubectl version --client",
      "kubectl config use-context x",
    ])
      expect(decide(deny, command).action, command).toBe("ask");
    const allow = policy({ allow: ["bash(kubectl *)"] });
    expect(decide(allow, "kubectl foo x").action).toBe("allow");
  });

  it("`git foo …` (foo not built in) runs `git-foo`; built-in subcommands do not", () => {
    for (const command of ["git foo x", "git foo -x y", "git -C d foo x", "git --no-pager foo x", "git -c alias.foo=log foo x"])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(git-foo *)" });
    for (const command of ["git status", "git log --oneline", "git commit -m foo", "git rm foo", "git stash"])
      expect(decide(deny, command).action, command).toBe("ask");
    expect(decide(deny, 'git "x$F" y')).toMatchObject({ action: "deny", reason: expect.stringContaining("not literal") });
    expect(decide(policy({ allow: ["bash(git *)"] }), "git foo x").action).toBe("allow");
  });
});
