import {
  ASK_USER_TO_TRUST,
  allowedToolsAllowBash,
  confinePath,
  errorMessage,
  openFileInside,
  readOpened,
  readRefusal,
  type Host,
  type RunContext,
} from "../../core/index.js";
import type { PromptCommand } from "../../manifests/commands/prompt-command.js";
import type { RenderDeps } from "./render-command.js";

/** Most bytes of an `@file` included in a command's prompt. */
const MAX_FILE_BYTES = 256 * 1024;
/** Read past MAX_FILE_BYTES so that a secret the cut goes through is hidden whole first (longer than any token, a private key included). */
const SECRET_MARGIN = 8 * 1024;

/**
 * True when a command's shell lines may run at all: it comes from the user level, or the workspace
 * is trusted (and a Claude command's `allowed-tools`, which approve its lines, are as `keel trust` approved them).
 */
export function commandMayRunShell(host: Host, cmd: PromptCommand): boolean {
  return shellRefusal(host, cmd) === undefined;
}

/**
 * Why a command's shell lines may not run, or undefined when they may. The refusal is rendered into
 * the command's prompt, which a model reads (a turn, a workflow step, `prompts/get` of `keel mcp serve`):
 * it says to ask the user to run `keel trust`, never a way to trust for one run.
 */
function shellRefusal(host: Host, cmd: PromptCommand): string | undefined {
  if (cmd.level === "user") return undefined;
  if (!host.trusted || host.options.reviewTrust)
    return `this workspace is not trusted, so its commands run no shell lines (\`keel trust\`${ASK_USER_TO_TRUST})`;
  if (cmd.syntax === "claude" && cmd.allowedTools?.length && host.service("workflows")?.allowedToolsApproved(cmd) === false)
    return `its allowed-tools were added or changed since this workspace was trusted: review them with \`keel trust\`${ASK_USER_TO_TRUST}`;
  return undefined;
}

/**
 * File and shell access for rendering `cmd` in `host`. `@file`: relative to the working directory,
 * confined to the workspace (links out refused), regular files, cut at 256 KiB, never one a read
 * deny or ask rule covers (see readRefusal), with the secrets tool results hide as `***`. Shell lines: only
 * when the command comes from the user level or a trusted workspace. A Claude command's `` !`cmd` ``
 * runs only when its `allowed-tools` allows that line (Claude `Bash(…)` rules, a single static simple
 * command, as keel's allow rules match), and then through the `bash` tool's pipeline approved like
 * `--yes`; a Gemini command's `!{cmd}` goes through the pipeline as any bash call (it asks, as Gemini
 * CLI does). Deny rules of every level win and the sandbox applies. Every refusal says why.
 */
export function commandRenderDeps(host: Host, cmd: PromptCommand, run: RunContext): RenderDeps {
  const cwd = run.cwd ?? host.activeDir;
  const root = host.confinementRoot(cwd);
  return {
    async readFile(path) {
      // `@path` is a read_file: not for a caller that may not use read_file (`keel mcp serve --tools`, a sub-agent's menu).
      if (run.isVisible && !run.isVisible("read_file")) throw new Error("read_file is not among the tools available here");
      // nor when a plugin blocks read_file (the shell lines meet blocks in the pipeline; this read is not a call)
      const readFile = host.registry.resolve("read_file");
      const block = readFile ? host.hooks.toolBlocked.call({ host, calledAs: "read_file", tool: readFile.tool }) : undefined;
      if (!readFile || block?.block) throw new Error(readFile ? `read_file is blocked${block?.by ? ` by ${block.by}` : ""}` : "read_file is not available");
      const abs = confinePath(root, path, "path", cwd);
      // what read_file may not show the model, `@path` may not either
      const refused = readRefusal(host, root, abs);
      if (refused) throw new Error(`${refused} keeps it from the model`);
      const handle = await openFileInside(root, abs, path).catch((error: NodeJS.ErrnoException) => {
        throw new Error(error.code === "ENOENT" ? "no such file" : errorMessage(error));
      });
      try {
        const st = await handle.stat();
        if (!st.isFile()) throw new Error("not a regular file");
        // What read_file would show: the secrets tool results hide are *** here too, hidden before the cut (read
        // SECRET_MARGIN bytes past it), as a cut through one would show its start.
        const read = (await readOpened(handle, Math.min(st.size, MAX_FILE_BYTES + SECRET_MARGIN))).toString("utf8");
        const text = host.resultSecrets.redactor()?.text(read) ?? read;
        return st.size > MAX_FILE_BYTES ? `${Buffer.from(text).subarray(0, MAX_FILE_BYTES).toString("utf8")}\n[… cut at ${MAX_FILE_BYTES} bytes]` : text;
      } finally {
        await handle.close();
      }
    },
    async runShell(command) {
      const refused = shellRefusal(host, cmd);
      if (refused) throw new Error(refused);
      const bash = host.registry.resolve("bash")?.tool;
      if (!bash) throw new Error("the bash tool is not available");
      // Claude: `allowed-tools` pre-approves the line (like an approval; deny rules still win).
      // Gemini: no such field; the line goes through the pipeline as it is and asks like any bash call.
      let approved = false;
      if (cmd.syntax === "claude") {
        if (!(await allowedToolsAllowBash(cmd.allowedTools ?? [], bash, command, cwd, root))) {
          const program = command.trim().split(/\s+/)[0] ?? "";
          // Its program is allowed already: the line is more than one static simple command.
          const how = (await allowedToolsAllowBash(cmd.allowedTools ?? [], bash, program, cwd, root))
            ? "only one static simple command is pre-approved: no ;, &&, |, $(…), backticks or redirection; put each command on a !`…` line of its own"
            : `add e.g. "Bash(${program}:*)" to allowed-tools in ${cmd.file}`;
          throw new Error(`the command's allowed-tools do not allow it (${how})`);
        }
        approved = true;
      }
      // What it prints goes into the command's prompt: a model reads it.
      const obs = await host.runTool(
        { tool: "bash", input: { command } },
        { ...run, ...(approved ? { yes: true } : {}), origin: `command:${cmd.name}`, readByModel: true },
      );
      if (!obs.ok) throw new Error(`${obs.code}: ${obs.content.split("\n")[0]}`);
      const data = obs.data as { stdout?: unknown } | null;
      return typeof data?.stdout === "string" ? data.stdout : obs.content;
    },
  };
}
