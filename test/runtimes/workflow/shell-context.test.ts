import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderShellCommand } from "../../../runtimes/workflow/template-values.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, removeTree, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** Values that each try to leave their quoting: quotes, expansions, a trailing backslash, a here-document's end, an arithmetic subscript. */
const HOSTILE = ["a'b\"c$(touch PWN)`touch PWN`\\", "x\\", ";touch PWN;'", "}\"' ; touch PWN\n", "line1\nEOF\ntouch PWN", "$'x'", "a[$(touch PWN)]"];

/** Runs a rendered command line with bash in `dir`; its stdout. */
function bash(command: string, dir: string): string {
  return execFileSync("bash", ["-c", command], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("a run command's values are quoted for where they stand (real bash)", () => {
  const templates = [
    "printf '<%s>' {v}",
    "printf '<%s>' x{v}y",
    "printf '<%s>' '{v}'",
    "printf '<%s>' 'pre {v} post'",
    "printf '<%s>' \"{v}\"",
    'printf \'<%s>\' "a\\"{v}"',
    "printf '<%s>' ${v}",
    "printf '<%s>' \"${v}\"",
    "printf '<%s>' \\${v}",
    "printf '<%s>' $${v}",
    "printf '<%s>' \"$(printf '%s' \"{v}\")\"",
    "(printf '<%s>' {v})",
    "cat <<'EOF'\nit's\nEOF\nprintf '<%s>' {v}",
    "printf '<%s>' \"${X:-'}'}\" {v}",
    "printf '<%s>' $(echo a)#'\n{v}\n'",
    "printf '<%s>' <(true)#'\n{v}\n' >/dev/null; printf '<%s>' {v}",
    "printf '<%s>' \"$(echo case) {v}\"",
    "case a in a) printf '<%s>' {v};; esac",
    "printf '<%s>' \\\n  {v} \\\n  \"{v}\"",
  ];
  it.each(templates)("%j keeps every value literal: the text arrives whole, nothing runs", (template) => {
    const dir = mkdtempSync(join("/var/tmp", "keel-shell-"));
    try {
      for (const v of HOSTILE) {
        const r = renderShellCommand(template, { v, steps: {} });
        expect(r.unsafe, r.value).toEqual([]);
        const out = bash(r.value, dir);
        // ($(…) drops trailing newlines)
        expect(out, r.value).toContain(v.replace(/\n+$/, ""));
        expect(existsSync(join(dir, "PWN")), r.value).toBe(false);
      }
    } finally {
      removeTree(dir);
    }
  });

  it.each([
    "printf '<%s>' \\{v}",
    "printf '<%s>' `echo {v}`",
    "printf '<%s>' ${X:-{v}}",
    "echo hi # {v}",
    "echo hi \\\n# {v}",
    "(true)# {v}",
    "((1))# {v}",
    "cat <<EOF\n{v}\nEOF",
    "cat <<'EOF'\nit's {v}\nEOF",
    'cat <<E"O"F\n{v}\nEOF',
    "cat <<-EOF\n\t{v}\n\tEOF",
    "printf '<%s>' $'a{v}'",
    "printf '<%s>' $(( {v} ))",
    "(( {v} ))",
    "for (( i={v}; i<1; i++ )); do :; done",
    "printf '<%s>' $[ {v} ]",
    // A case pattern's `)` does not end the substitution: "{v}" there stands unquoted in it (ran `;touch PWN;`).
    "printf '<%s>' \"$(case a in a) echo {v};; esac)\"",
    "printf '<%s>' <(case a in a) echo x;; esac) \"{v}\"",
    // A line continuation inside a word joins it: `$\⏎(` is `$(` (the value stood unquoted), `<\⏎<EOF` a here-document.
    "printf '<%s>' \"$\\\n(echo {v})\"",
    "cat <\\\n<EOF\n{v}\nEOF",
    // Inside "${…}", '…' does not quote: the value stood as in "…", unescaped.
    "printf '<%s>' \"${X:-'{v}'}\"",
  ])("%j is refused: no quoting holds there", (template) => {
    expect(renderShellCommand(template, { v: "x", steps: {} }).unsafe).toEqual(["v"]);
  });

  it("a here-document ends where bash ends it: a value after it is quoted as usual", () => {
    const r = renderShellCommand("cat <<-EOF\n\thi {{x}}\n\tEOF\nprintf '<%s>' {v}", { v: "a b", steps: {} });
    expect(r).toEqual({ value: "cat <<-EOF\n\thi {x}\n\tEOF\nprintf '<%s>' 'a b'", missing: [], unsafe: [] });
  });
});

describe("keel workflow run with a placeholder inside quotes or after a backslash (real CLI)", () => {
  it('"{x}" passes the text as it is; \\{x} fails the step before anything runs', async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [
          { name: "dq", steps: [{ run: 'printf "%s" "{x}" > dq.txt' }] },
          { name: "sq", steps: [{ run: "printf '%s' 'x={x}' > sq.txt" }] },
          { name: "bs", steps: [{ run: "touch RAN; echo \\{x}" }, { run: "touch SECOND" }] },
        ],
      },
    });
    const value = "$(touch PWN_DQ)`touch PWN_BT`'; touch PWN_SQ; '";
    for (const name of ["dq", "sq"]) {
      const r = await runKeel(["--trust", "--yes", "workflow", "run", name, "--arg", `x=${value}`], { cwd: ws.root, env: ws.env });
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    }
    expect(ws.read("dq.txt")).toBe(value);
    expect(ws.read("sq.txt")).toBe(`x=${value}`);
    for (const f of ["PWN_DQ", "PWN_BT", "PWN_SQ"]) expect(ws.exists(f), f).toBe(false);

    const bs = await runKeel(["--trust", "--yes", "--json", "workflow", "run", "bs", "--arg", "x=;touch PWN_BS;'"], { cwd: ws.root, env: ws.env });
    expect(bs.exitCode).toBe(1);
    const record = JSON.parse(bs.stdout);
    expect(record.steps[0]).toMatchObject({ status: "failed", code: "precondition_failed" });
    expect(record.steps[0].reason).toContain("{x} stands where keel cannot quote a value safely");
    expect(record.steps[1].status).toBe("skipped");
    for (const f of ["RAN", "SECOND", "PWN_BS"]) expect(ws.exists(f), f).toBe(false);
  });
});
