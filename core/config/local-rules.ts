import { join, relative, sep } from "node:path";
import type { Diagnostic } from "../diagnostics.js";
import { errorMessage, UsageError } from "../errors.js";
import { ancestorsWithin, type Workspace } from "../workspace.js";
import { claudeScope, type ConfigLayer, localConfigFile, readJsonLayer } from "./config-sources.js";
import { isPlainObject } from "./plain-object.js";
import { type LocalRules, type LocalRulesByFile, localRulesFile, readLocalRules, RESTRICTING_LISTS, updateLocalRules } from "./local-rules-record.js";

/** The command that confirms a local config file's change (drops the rules keel held for it). */
export const CONFIRM_LOCAL_COMMAND = "keel config confirm-local";

/** A local config file: in the workspace, ignored by git, but yours (`.keel/config.local.json`, `.claude/settings.local.json`). */
export interface LocalConfigFile {
  source: "local" | "claude";
  file: string;
  /** The file relative to the workspace root, `/` separators: its key in the record. */
  key: string;
}

/** What `checkLocalRules` found. */
export interface LocalRulesCheck {
  /** One layer per file whose recorded deny or ask rules are gone from it, holding those rules: merged, they stay in force until confirmed. */
  held: ConfigLayer[];
  /** A warning per such file (naming it, the rules, and how to confirm), or one saying the record cannot be read. */
  diagnostics: Diagnostic[];
  /** Files whose rules only grew since recorded (or were never recorded): record them once the config is known to load (`recordLocalRules`). */
  grown: LocalRulesByFile;
}

/**
 * The local config files keel reads from `ws.cwd`: `.claude/settings.local.json` in every folder from
 * the workspace root down (as jsonLayerFiles walks them, whether or not the folder has a `.claude`),
 * then `.keel/config.local.json`. Pure: touches no file.
 */
export function localConfigFiles(ws: Workspace): LocalConfigFile[] {
  const state = [ws.stateDir, join(ws.stateDir, "worktrees")];
  const claude = ancestorsWithin(ws.cwd, ws.root)
    .filter((dir) => !state.includes(dir))
    .reverse()
    .map((dir) => join(dir, ".claude", "settings.local.json"));
  const key = (file: string) => relative(ws.root, file).split(sep).join("/");
  return [
    ...claude.map((file) => ({ source: "claude" as const, file, key: key(file) })),
    { source: "local" as const, file: localConfigFile(ws), key: key(localConfigFile(ws)) },
  ];
}

/** The deny and ask rules written in a config file's value (strings only, each once, in order); none for a missing or unparsed file. */
export function restrictingRules(value: Record<string, unknown> | undefined): LocalRules {
  const permissions = isPlainObject(value?.permissions) ? value.permissions : {};
  const list = (v: unknown) => (Array.isArray(v) ? [...new Set(v.filter((r): r is string => typeof r === "string"))] : []);
  return { deny: list(permissions.deny), ask: list(permissions.ask) };
}

/**
 * Compares each local config file's deny and ask rules with those keel recorded for it (under
 * `$KEEL_HOME`, see local-rules-record.ts). git overwrites an ignored file without a word when the
 * repository starts tracking that path (`git pull`, a checkout), and removes it again when it stops:
 * rules you wrote there would vanish unnoticed. Rules recorded but gone from the file (a missing or
 * unparseable file holds none) come back as `held` layers, with a warning naming the file, the rules,
 * whether git tracks the file, and how to confirm the change; only then is git run (once). Reads one
 * small file otherwise, and writes nothing (see `grown`). Never throws.
 */
export async function checkLocalRules(ws: Workspace, layers: readonly ConfigLayer[], env: NodeJS.ProcessEnv): Promise<LocalRulesCheck> {
  let recorded: LocalRulesByFile;
  try {
    recorded = await readLocalRules(ws.keelHome, ws.root);
  } catch (error) {
    const file = localRulesFile(ws.keelHome, ws.root);
    const message = `keel cannot read its record of the deny and ask rules in this workspace's local config files (${errorMessage(error)}), so it cannot tell whether a \`git pull\` removed some of them. Fix or delete that file: keel then records the rules as they are now.`;
    return { held: [], grown: {}, diagnostics: [{ severity: "warning", source: "config", file, message }] };
  }
  const gone: { local: LocalConfigFile; missing: LocalRules; layer?: ConfigLayer }[] = [];
  const grown: LocalRulesByFile = {};
  for (const local of localConfigFiles(ws)) {
    const layer = layers.find((l) => l.file === local.file && l.source === local.source);
    const now = restrictingRules(layer?.value);
    const before = recorded[local.key] ?? { deny: [], ask: [] };
    const missing = minus(before, now);
    if (count(missing)) gone.push({ local, missing, layer });
    else if (count(minus(now, before))) grown[local.key] = now;
  }
  if (!gone.length) return { held: [], diagnostics: [], grown };
  const { trackedByGit } = await import("./git-tracked.js");
  const tracked = await trackedByGit(
    ws.root,
    gone.map((g) => g.local.file),
    env,
  );
  return {
    held: gone.map(({ local, missing }) => heldLayer(local, missing, ws.root)),
    diagnostics: gone.map(({ local, missing, layer }) => ({
      severity: "warning",
      source: "config",
      file: local.file,
      path: "permissions",
      message: goneMessage(local, missing, tracked.has(local.file), layer, localRulesFile(ws.keelHome, ws.root)),
    })),
    grown,
  };
}

/**
 * Records the rules `checkLocalRules` found grown, under the record's lock: a file's entry is
 * replaced only while its new rules still hold every recorded one (another keel may have recorded
 * more meanwhile). Best effort: a record keel cannot write is tried again by the next command. Never throws.
 */
export async function recordLocalRules(ws: Workspace, grown: LocalRulesByFile): Promise<void> {
  if (!Object.keys(grown).length) return;
  try {
    await updateLocalRules(ws.keelHome, ws.root, (current) => {
      const changes = Object.fromEntries(Object.entries(grown).filter(([key, now]) => !count(minus(current[key] ?? { deny: [], ask: [] }, now))));
      return Object.keys(changes).length ? changes : undefined;
    });
  } catch {
    // the next command records them
  }
}

/**
 * Records `.keel/config.local.json`'s rules after your own `keel config set` wrote `keys` into it:
 * a list you set (`permissions`, `permissions.deny`, `permissions.deny[0]`) is recorded as it is
 * now, so rules you left out are dropped for good; the other list keeps what was recorded (a rule
 * held for it stays held) and adds what is new. Throws StateError when the record cannot be written.
 */
export async function recordOwnLocalWrite(ws: Workspace, keys: readonly string[]): Promise<void> {
  const file = localConfigFile(ws);
  const layer = await readJsonLayer("local", file, ws.root);
  if (!layer?.value) return;
  const now = restrictingRules(layer.value);
  const key = localConfigFiles(ws).find((l) => l.source === "local")!.key;
  const written = (list: string) => keys.length === 0 || (keys[0] === "permissions" && (keys.length === 1 || keys[1] === list));
  await updateLocalRules(
    ws.keelHome,
    ws.root,
    (current) => {
      const before = current[key] ?? { deny: [], ask: [] };
      const next = {
        deny: written("deny") ? now.deny : union(before.deny, now.deny),
        ask: written("ask") ? now.ask : union(before.ask, now.ask),
      };
      return same(before, next) ? undefined : { [key]: next };
    },
    [key],
  );
}

/** One local config file `keel config confirm-local` confirmed: the rules keel no longer holds for it. */
export interface ConfirmedLocalFile {
  file: string;
  dropped: LocalRules;
}

/** What `keel config confirm-local` did: files confirmed, and files with held rules whose rules now did not fit in the record (see MAX_RECORD_BYTES: what was held for them stays held). */
export interface LocalConfirmation {
  confirmed: ConfirmedLocalFile[];
  notRecorded: string[];
}

/**
 * `keel config confirm-local`: records each local config file's deny and ask rules as they are now,
 * so the rules keel held for it (gone from the file) are dropped for good. Refuses (UsageError, nothing
 * recorded) while one of them cannot be parsed: keel cannot tell what it holds. Returns, per file,
 * what is no longer held, and the files whose held rules stay held because their rules now do not fit
 * in the record (MAX_RECORD_BYTES).
 */
export async function confirmLocalRules(ws: Workspace, layers: readonly ConfigLayer[]): Promise<LocalConfirmation> {
  const files = localConfigFiles(ws);
  const broken = layers.find((l) => l.error && files.some((f) => f.file === l.file));
  if (broken)
    throw new UsageError(
      `${broken.file} cannot be parsed (${broken.error}), so keel cannot tell which rules it holds: fix the file (keel never rewrites it), then run \`${CONFIRM_LOCAL_COMMAND}\` again. Nothing was confirmed.`,
    );
  const confirmed: (ConfirmedLocalFile & { key: string })[] = [];
  const full = await updateLocalRules(ws.keelHome, ws.root, (current) => {
    const changes: LocalRulesByFile = {};
    confirmed.length = 0;
    for (const local of files) {
      const now = restrictingRules(layers.find((l) => l.file === local.file && l.source === local.source)?.value);
      const before = current[local.key] ?? { deny: [], ask: [] };
      if (same(before, now)) continue;
      changes[local.key] = now;
      const dropped = minus(before, now);
      if (count(dropped)) confirmed.push({ key: local.key, file: local.file, dropped });
    }
    return Object.keys(changes).length ? changes : undefined;
  });
  return {
    confirmed: confirmed.filter((c) => !full.includes(c.key)).map(({ file, dropped }) => ({ file, dropped })),
    // (a file with nothing held that did not fit is left unrecorded, as when it grew: its rules apply while in it)
    notRecorded: confirmed.filter((c) => full.includes(c.key)).map((c) => c.file),
  };
}

/** The layer keeping `missing` in force: the file's own source (so Claude Code's rule syntax and folder scope still apply), holding only those rules. */
function heldLayer(local: LocalConfigFile, missing: LocalRules, root: string): ConfigLayer {
  const permissions = Object.fromEntries(RESTRICTING_LISTS.filter((l) => missing[l].length).map((l) => [l, missing[l]]));
  const scope = local.source === "claude" ? claudeScope(local.file, root) : undefined;
  return { source: local.source, file: local.file, value: { permissions }, ...(scope !== undefined ? { scope } : {}) };
}

/**
 * Most rules of one list the warning names (and of a rule, characters): it is said as every command starts, and a
 * local file a repository shipped (then took away) can have held thousands of rules, or a rule of megabytes.
 */
const MAX_NAMED_RULES = 20;
const MAX_NAMED_RULE_CHARS = 200;

/** The warning for a local config file whose recorded rules are gone. */
function goneMessage(local: LocalConfigFile, missing: LocalRules, tracked: boolean, layer: ConfigLayer | undefined, record: string): string {
  const named = (rule: string) => JSON.stringify(rule.length > MAX_NAMED_RULE_CHARS ? `${rule.slice(0, MAX_NAMED_RULE_CHARS)}…` : rule);
  const lists = RESTRICTING_LISTS.filter((l) => missing[l].length).map((l) => {
    const rules = missing[l];
    const more = rules.length > MAX_NAMED_RULES ? ` and ${rules.length - MAX_NAMED_RULES} more (all of them in ${record})` : "";
    return `${l} rule${rules.length === 1 ? "" : "s"} ${rules.slice(0, MAX_NAMED_RULES).map(named).join(", ")}${more}`;
  });
  const state = !layer ? "The file is gone" : layer.error ? `The file cannot be parsed now (${layer.error})` : "The file changed since keel last read it";
  const why = tracked
    ? "git tracks this file: a `git pull` or checkout replaced your copy with the repository's (a local config file is yours; the repository should not ship one)"
    : "a `git pull` or checkout may have replaced or removed it (git overwrites an ignored file without a word when the repository starts tracking that path)";
  return `Rules you had in this file are gone: ${lists.join("; ")}. ${state}; ${why}. keel keeps these rules in force (they only restrict) until you confirm the change: put them back in the file${local.source === "local" ? " (`keel config set permissions.deny …`)" : ""}, or run \`${CONFIRM_LOCAL_COMMAND}\` to drop them.`;
}

/** The rules of `a` that `b` lacks. */
function minus(a: LocalRules, b: LocalRules): LocalRules {
  // Sets: a committed file may hold many rules.
  const deny = new Set(b.deny);
  const ask = new Set(b.ask);
  return { deny: a.deny.filter((r) => !deny.has(r)), ask: a.ask.filter((r) => !ask.has(r)) };
}

function count(rules: LocalRules): number {
  return rules.deny.length + rules.ask.length;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

function same(a: LocalRules, b: LocalRules): boolean {
  return count(minus(a, b)) === 0 && count(minus(b, a)) === 0;
}
