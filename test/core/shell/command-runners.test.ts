import * as unbash from "unbash";
import { afterEach, describe, expect, it } from "vitest";
import { analyzeShell } from "../../../core/shell/shell-analysis.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { decide, policy } from "../../helpers/shell-policy.js";

describe("programs that run a command they are given", () => {
  const deny = policy({ deny: ["bash(rm *)", "bash(rimraf *)"] });

  it("deny rules see the command su, runuser, script, parallel, nsenter, systemd-run, sg, setpriv and the like run", () => {
    for (const command of [
      "su -c 'rm x'",
      "su root -c 'rm x'",
      "su - root --command='rm x'",
      "su --comm 'rm x' root",
      "su -s /bin/rm root x",
      "su root -- -c 'rm x'",
      "runuser -u me -- rm x",
      "runuser -l me -c 'rm x'",
      "script -qc 'rm x' /dev/null",
      "script /dev/null -qc 'rm x'",
      "script --command='rm x'",
      "parallel rm ::: x",
      "parallel -j4 'rm {}' ::: a b",
      "parallel -q rm ::: x",
      "parallel -I% 'rm %' ::: x",
      "parallel ::: 'echo ok' 'rm x'",
      "nsenter -t 1 -m rm x",
      "nsenter -t 1 --mount=/proc/1/ns/mnt -- rm x",
      "systemd-run --user --wait rm x",
      "sg wheel 'rm x'",
      "sg wheel -c 'rm x'",
      "setpriv --reuid 1000 --nnp rm x",
      "flatpak-spawn --host rm x",
      "dbus-run-session -- rm x",
      "pkexec --user root rm x",
      "unbuffer -p rm x",
      "catchsegv rm x",
      "/usr/bin/time -v rm x",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    for (const command of [
      "su -c ls -s /bin/bash root -- -c 'rm x'",
      "su -c ls",
      "script -qc ls /dev/null",
      "parallel echo ::: a",
      "nsenter -t 1 ls",
      "systemd-run --user ls",
      "sg wheel ls",
      "setpriv --nnp ls",
    ])
      expect(decide(deny, command).action, command).toBe("ask");
  });

  it("deny rules see the command ssh, docker, podman and kubectl run remotely or in a container", () => {
    for (const command of [
      "ssh host rm x",
      "ssh -p 22 host -t 'rm -rf x'",
      "ssh host 'echo ok; rm x'",
      "ssh -o RemoteCommand='rm x' host",
      "docker exec c rm x",
      "docker exec -it -u root c sh -c 'rm x'",
      "docker -H tcp://127.0.0.1:2375 container exec c rm x",
      "docker run --rm alpine rm x",
      "docker run --rm --entrypoint rm alpine x",
      "docker run --health-cmd 'rm x' alpine",
      "podman exec -l rm x",
      "kubectl exec p -- rm x",
      "kubectl -n prod exec -it p -c main -- sh -c 'rm x'",
      "oc exec p -- rm x",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    for (const command of [
      "ssh host ls",
      "ssh -N -L 8080:localhost:80 host",
      "docker exec c ls",
      "docker ps",
      "docker run --rm -v /a:/b alpine ls",
      "kubectl get pods",
      "kubectl exec p -- ls",
    ])
      expect(decide(deny, command).action, command).toBe("ask");
  });

  it("a package runner runs the package's program: `npx rimraf x` meets `bash(rimraf *)`, and an allow rule for `npx vitest *` still matches", () => {
    for (const command of [
      "npx rimraf x",
      "npx -y rimraf@5 x",
      "npx @acme/rimraf x",
      "npx -p rimraf rimraf x",
      "npm exec -- rimraf x",
      "npm x rimraf x",
      "pnpm dlx rimraf x",
      "pnpm exec rimraf x",
      "yarn dlx rimraf x",
      "bunx rimraf x",
      "bun x rimraf x",
      // Options before the subcommand (were: not looked into, so rimraf ran).
      "npm -y exec -- rimraf x",
      "npm -w pkg exec rimraf x",
      "pnpm --silent dlx rimraf x",
      "yarn --cwd . dlx rimraf x",
      "bun --bun x rimraf x",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rimraf *)" });
    expect(decide(deny, "npm --call 'rm x' exec"), "npm --call 'rm x' exec").toMatchObject({ action: "deny", rule: "bash(rm *)" });
    for (const command of ["npm -w x run build", "npm --foo install", "npm -s run test"]) expect(decide(deny, command).action, command).toBe("ask");
    for (const command of ["npx -c 'rm x'", "pnpm exec -c 'rm x'", "yarn exec 'rm x'", "npx sudo rm x"])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    const allow = policy({ allow: ["bash(npx vitest *)"] });
    expect(decide(allow, "npx vitest run").action).toBe("allow");
    expect(decide(allow, "npx vitest run; ls").action).toBe("ask");
    for (const command of ["npm test", "pnpm install", "npx prettier --check ."]) expect(decide(deny, command).action, command).toBe("ask");
  });

  it("fails closed where the command cannot be read exactly: unknown options, options that run local code, input or words keel cannot see", () => {
    const cases: [string, string][] = [
      ["su", "`su` without `-c` runs a shell reading its input"],
      ["script -q /dev/null", "`script` without `-c`"],
      ['script -c "$C" /dev/null', "`script -c` with a command that is not literal"],
      ["parallel < commands.txt", "`parallel` reading the commands it runs"],
      ["parallel {} ::: 'rm x'", "comes from an expansion"],
      ["parallel 'sh -c {}' ::: 'rm x'", "`sh -c` with a script that is not literal"],
      ["parallel 'echo {= $_=1 =}' ::: a", "runs perl code"],
      ["parallel --ssh ./evil echo ::: a", "an option keel does not know (`--ssh`)"],
      ["nsenter -t 1", "`nsenter` without a command"],
      ["systemd-run --user -p ExecStartPre='/bin/rm x' ls", "can run a command keel cannot check"],
      ["ssh host", "without a command runs a remote shell"],
      // `"$CMD"` could be `-oProxyCommand=…` too: ssh reads options after the host.
      ['ssh host "$CMD"', "not literal"],
      ["ssh -o ProxyCommand='rm x' host ls", "`ssh -o ProxyCommand` runs or loads local code"],
      ["ssh -oLocalCommand='rm x' -oPermitLocalCommand=yes host ls", "`ssh -o LocalCommand`"],
      ["ssh host -o 'ProxyCommand rm x' ls", "`ssh -o ProxyCommand`"],
      ["ssh -l -- host -o ProxyCommand=x ls", "`ssh -o ProxyCommand`"],
      ["ssh -F ./ssh_config host ls", "`ssh -F FILE`"],
      ["docker run --bogus alpine ls", "an option keel does not know (`--bogus`)"],
      ["podman --runtime ./evil run alpine ls", "an option keel does not know (`--runtime`)"],
      ["kubectl exec p rm x", "without `--`"],
      ['kubectl exec "$POD" -- ls', "not literal"],
      ["kubectl exec p -c -- rm x -- ls", "could take `--` as its value"],
      ["dbus-run-session --dbus-daemon=./evil ls", "an option keel does not know"],
      ["npx --bogus rimraf x", "an option keel does not know (`--bogus`)"],
      ["npm --bogus exec rimraf x", "which could take the next word or run something itself (before `exec` or `x`)"],
      // ssh takes quotes out of a keyword: both ran `touch x` locally unseen.
      [`ssh -o '"ProxyCommand" touch x' host ls`, "a setting keel cannot read exactly"],
      [`ssh -o 'Proxy"Command"=touch x' host ls`, "a setting keel cannot read exactly"],
      ["sg wheel", "`sg` without a command"],
    ];
    for (const [command, why] of cases) expect(decide(deny, command), command).toMatchObject({ action: "deny", reason: expect.stringContaining(why) });
  });

  it('a word that may expand to several (`$X`, a glob, `"$@"`) where options or the command\'s start are read fails closed; a quoted one does not', () => {
    for (const command of [
      "ssh $H ls",
      "ssh -l $U host ls",
      "docker run $OPTS alpine ls",
      "docker exec -u $U c ls",
      "docker exec * ls",
      'su "$@" -c ls',
      "sudo -u $U ls",
      "timeout $T ls",
      "nice -n $N ls",
      "sg $G ls",
      "npx -p $P x",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", reason: expect.stringMatching(/may expand to several/) });
    for (const command of ['ssh "host-$N" ls', 'docker exec -u "$U" "c-$C" ls', 'sudo -u "$U" ls', "timeout 5 ls", 'docker run -e "A=$X" alpine ls'])
      expect(decide(deny, command).action, command).toBe("ask");
  });

  it("a word that is not literal where an option could stand fails closed: it may expand to one (`-crm x`, `-y`, `-oProxyCommand=…`)", () => {
    // Each ran `rm`/`rimraf` unseen with the value in the comment (they were read as an operand or the command's start).
    for (const command of [
      'su root -c ls "$F"', // F='-crm x': the last -c wins
      'script -qc ls "$F" /dev/null', // F='-crm x'
      'npm "$X" exec rimraf x', // X=-y
      "git \"$X\" core.pager='rm x' log", // X=-c
      'ssh "$H" ls', // H='-oProxyCommand=rm x'
      'docker exec "$C" ls rm x', // C=--privileged: ls is the container
      'docker compose "$X" exec web rm x', // X=--dry-run
      'uv "$X" run rm x', // X=-q
      'timeout "$T" 5 rm x', // T=-v: 5 is the duration
      'timeout "-k$K" 5 rm x', // K=1: -k takes it, 5 is the duration (the word was read as the duration)
      'su root "-c$X" ls', // X='rm x'
      'chroot "$(opts)" /srv rm x', // opts prints --userspec=u: /srv is the new root
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", reason: expect.stringMatching(/not literal/) });
  });

  it("a program named like an Object.prototype key (`valueOf`, `constructor`) is no wrapper: reading it does not throw", () => {
    // Each threw `values.has is not a function` from the permission check (a `keel call` or a turn failed with a TypeError).
    for (const command of ["valueOf -f x", "constructor -u root rm x", "toString -x y", "timeout 5 hasOwnProperty -k x"])
      expect(decide(deny, command).action, command).toBe("ask");
  });

  it("an allow rule for the wrapper does not allow the command it runs: that is another command", () => {
    const p = policy({ allow: ["bash(ssh *)", "bash(docker *)"], ask: ["bash(rm *)"] });
    expect(decide(p, "ssh -N -L 8080:localhost:80 host").action).toBe("allow");
    expect(decide(p, "docker ps").action).toBe("allow");
    expect(decide(p, "ssh host rm x")).toMatchObject({ action: "ask", rule: "bash(rm *)" });
    expect(decide(p, "ssh host uptime").action).toBe("ask");
    expect(decide(p, "docker exec c ls").action).toBe("ask");
  });

  it("reads a deep chain of wrappers in linear work: each level is analysed once, and past 8 levels it fails closed", () => {
    const level = "ssh h docker exec c kubectl exec p -- nsenter -t 1 setpriv --nnp sg g ";
    for (const chain of [
      `${"ssh h ".repeat(40)}rm x`,
      `${"docker exec c ".repeat(40)}rm x`,
      `${level.repeat(20)}rm x`,
      `${"npx ".repeat(40)}rm x`,
      `${"runuser -u u -- ".repeat(40)}rm x`,
    ]) {
      const analysis = analyzeShell(chain, unbash);
      expect(analysis.commands.length, chain).toBeLessThan(60);
      expect(analysis.unresolved.join(), chain).toMatch(/nested more than 8 levels deep/);
      expect(decide(deny, chain).action).toBe("deny");
    }
    const shallow = analyzeShell(`${level}rm x`, unbash);
    expect(shallow.unresolved).toEqual([]);
    expect(shallow.commands.map((c) => c.argv.join(" "))).toContain("rm x");
  });
});

describe("keel call bash through a wrapper", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.cleanup());

  it("a user deny rule stops `script -qc 'rm …'` even with --yes (it ran before: script was not looked into)", async () => {
    ws = makeWorkspace({ victim: "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rm *)"] } });
    const r = await runKeel(["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command: "script -qc 'rm victim' /dev/null" })], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(r.json()).toMatchObject({ ok: false, code: "permission_denied", content: expect.stringContaining("bash(rm *)") });
    expect(ws.exists("victim")).toBe(true);
    const other = await runKeel(["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command: "setpriv --nnp rm victim" })], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(other.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(ws.exists("victim")).toBe(true);
  });
});
