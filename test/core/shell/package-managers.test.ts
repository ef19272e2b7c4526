import * as unbash from "unbash";
import { afterEach, describe, expect, it } from "vitest";
import { analyzeShell } from "../../../core/shell/shell-analysis.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { decide, policy } from "../../helpers/shell-policy.js";

describe("yarn, pnpm and bun run a script or program named by a word that is none of their commands", () => {
  const deny = policy({ deny: ["bash(rimraf *)", "bash(rm *)"] });

  it("`yarn rimraf x`, `yarn run rimraf x`, `pnpm rimraf x`, `bun rimraf x`, `bun run rimraf x` are `rimraf x` to deny rules", () => {
    for (const command of [
      "yarn rimraf x",
      "yarn run rimraf x",
      "yarn -s rimraf x",
      "yarn --cwd web rimraf x",
      "yarn --emoji true rimraf x",
      "yarn --registry https://registry.example rimraf x",
      "yarn --use-yarnrc .yarnrc rimraf x",
      "yarn --otp 123456 rimraf x",
      "yarnpkg rimraf x",
      "yarnpkg --cwd web run rimraf x",
      "yarn --frozen-lockfile rimraf x",
      "yarn run -T rimraf x",
      "yarn run --require ./r.js rimraf x",
      "yarn workspace web rimraf x",
      "yarn workspaces foreach -A --exclude root rimraf x",
      "yarn workspaces run rimraf x",
      "yarn packages/web rimraf x",
      "pnpm rimraf x",
      "pnpm --filter web rimraf x",
      "pnpm -C web -r rimraf x",
      "pnpm --stream true rimraf x",
      "pnpm -rw false rimraf x",
      "pnpm --pnpmfile p.cjs rimraf x",
      "pnpm --node-linker hoisted rimraf x",
      "pnpm --cache-dir c rimraf x",
      "pnpm -dir web rimraf x",
      "pnpm pm exec rimraf x",
      "pnpm recursive rimraf x",
      "pnpm recursive exec rimraf x",
      "yarn workspace web dlx rimraf x",
      "bun rimraf x",
      "bun run rimraf x",
      "bun --bun run rimraf x",
      "bun run --filter web rimraf x",
      "bun --cwd web rimraf x",
      "corepack yarn@1.22.22 rimraf x",
      "corepack pnpm dlx rimraf x",
    ])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rimraf *)" });
    // pnpm and bun run a program on PATH too (as `pnpm exec` does), and what it runs is read in turn.
    for (const command of ["pnpm sudo rm x", "bun run rm x", "yarn workspace web env rm x", "bun exec 'rm x'", "yarn workspace web exec 'rm x'"])
      expect(decide(deny, command), command).toMatchObject({ action: "deny", rule: "bash(rm *)" });
    expect(analyzeShell("yarn --cwd web rimraf x", unbash).commands.map((c) => c.argv.join(" "))).toEqual(["yarn --cwd web rimraf x", "rimraf x"]);
  });

  it("their own commands, scripts run by `npm run`/`pnpm run` and files bun runs are no such program: ordinary lines are not denied", () => {
    for (const command of [
      "yarn",
      "yarn install",
      "yarn add -D rimraf",
      "yarn remove rimraf",
      "yarn --cwd web install",
      "yarn --emoji rimraf install",
      "pnpm install",
      "pnpm test",
      "pnpm rm rimraf",
      "pnpm -r build",
      "pnpm --frozen-lockfile install",
      "pnpm -w add -D rimraf",
      "pnpm -r --parallel --no-bail test",
      "pnpm --filter=web --workspace-concurrency=1 build",
      "pnpm -C web --reporter append-only lint",
      'pnpm --filter "@x/web" build', // a quoted `@` is text, not `"$@"`
      'yarn workspace "@x/web" build',
      "pnpm run rimraf",
      "bun install",
      "bun rm rimraf",
      "bun run build",
      "bun run ./rimraf.ts",
      "bun rimraf.ts",
      "npm run rimraf",
      "npm run-script rimraf -- x",
    ])
      expect(decide(deny, command).action, command).toBe("ask");
    const allow = policy({ allow: ["bash(yarn rimraf *)", "bash(pnpm lint *)", "bash(bun run build *)"] });
    for (const command of ["yarn rimraf x", "pnpm lint --fix", "bun run build --minify"]) expect(decide(allow, command).action, command).toBe("allow");
  });

  it("fails closed where the word cannot be read exactly: not literal, after an option keel cannot read, after `--`", () => {
    for (const command of [
      'yarn "$T" x',
      "yarn $T",
      'yarn run "$T"',
      'pnpm "$T" x',
      'bun run "$T"',
      "bun --bogus rimraf x",
      "bun run --bogus rimraf x",
      "pnpm --fil web rimraf x",
      "pnpm -rC web rimraf x",
      "pnpm --filter -C web rimraf x",
      "pnpm --filter --dir rimraf x",
      "pnpm --workspace-concurrency 2 rimraf x",
      "yarn -- rimraf x",
      "yarn --cwd $D rimraf x",
      `${"yarn workspace w ".repeat(10)}rimraf x`,
    ])
      expect(decide(deny, command), command).toMatchObject({
        action: "deny",
        reason: expect.stringMatching(/not literal|keel does not know|keel cannot read|cannot tell|several|more than|depends on the option's type/),
      });
  });
});

describe("keel call bash through yarn", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.cleanup());

  it("a user deny rule for a program stops `yarn PROGRAM` even with --yes (it was not looked into)", async () => {
    ws = makeWorkspace({ victim: "keep me\n" });
    ws.writeUserConfig({ permissions: { deny: ["bash(rimraf *)"] } });
    const r = await runKeel(["--json", "--yes", "call", "bash", "--input", JSON.stringify({ command: "yarn rimraf victim" })], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ ok: false, code: "permission_denied", content: expect.stringContaining("bash(rimraf *)") });
    expect(ws.exists("victim")).toBe(true);
  });
});
