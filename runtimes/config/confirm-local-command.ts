import { relative, sep } from "node:path";
import type { CliContext } from "../../core/cli/index.js";
import {
  CONFIRM_LOCAL_COMMAND,
  confirmLocalRules,
  loadConfigLayers,
  localConfigFiles,
  MAX_RECORD_BYTES,
  resolveWorkspace,
  trackedByGit,
} from "../../core/index.js";

/**
 * `keel config confirm-local`: you accept the local config files as they are now. keel records their
 * deny and ask rules (under `$KEEL_HOME`) and stops holding the ones gone from them (a `git pull`
 * replaced the file, or you removed them by hand); says which it dropped, and whether git tracks a
 * local file (the repository ships it: the next pull may replace it again). Your own command line only
 * (cli.ts refuses it inside a process keel started for a tool: see refuseInToolProcess).
 */
export async function confirmLocalCommand(ctx: CliContext): Promise<void> {
  const ws = resolveWorkspace(ctx.globals().cwd, ctx.io.env);
  const layers = await loadConfigLayers(ws);
  const { confirmed, notRecorded } = await confirmLocalRules(ws, layers);
  const present = localConfigFiles(ws).filter((f) => layers.some((l) => l.file === f.file && l.value));
  const tracked = [
    ...(await trackedByGit(
      ws.root,
      present.map((f) => f.file),
      ctx.io.env,
      ctx.signal,
    )),
  ];
  const shown = (file: string) => (file.startsWith(ws.root + sep) ? relative(ws.root, file) : file);
  const rules = (list: string[]) => list.map((r) => JSON.stringify(r)).join(", ");
  ctx.print({ workspace: ws.root, confirmed, notRecorded, tracked }, () =>
    [
      ...(confirmed.length
        ? confirmed.map(
            (c) =>
              `Confirmed ${shown(c.file)}: keel no longer holds ${[
                c.dropped.deny.length ? `deny ${rules(c.dropped.deny)}` : "",
                c.dropped.ask.length ? `ask ${rules(c.dropped.ask)}` : "",
              ]
                .filter(Boolean)
                .join("; ")}.`,
          )
        : notRecorded.length
          ? []
          : ["Nothing to confirm: no deny or ask rule is held for the local config files here; their rules are recorded as they are."]),
      ...notRecorded.map(
        (file) =>
          `Not confirmed: ${shown(file)} holds more rules than keel's record of local config files takes (${MAX_RECORD_BYTES / 2 ** 20} MiB in all), so what keel held for it stays held. Remove rules from it (or the local config files of the folders around it), then run \`${CONFIRM_LOCAL_COMMAND}\` again.`,
      ),
      ...tracked.map(
        (file) =>
          `Note: git tracks ${shown(file)}: the repository ships it, so a later \`git pull\` may replace it again. Put rules meant for every project in your own $KEEL_HOME/config.json, and ask the repository to stop tracking the file (\`git rm --cached ${shown(file)}\`).`,
      ),
    ].join("\n"),
  );
}
