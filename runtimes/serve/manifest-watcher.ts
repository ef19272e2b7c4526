import { existsSync, type FSWatcher, watch } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ancestorsWithin, CLAUDE_SETTINGS_FILES, type Host } from "../../core/index.js";

/** File and folder names discovery reads in the folders from the working directory up to the root and in `$KEEL_HOME`. */
const MANIFEST_NAME =
  /^(\.?mcp\.json|\.(claw|codex)-mcp\.json|\.claw-workflows?\.json|keel\.config\.(json|ya?ml)|\.keelrc(\.(json|ya?ml))?|package\.json|config\.json|\.(claude|codex|claw)-plugin|plugins|commands|extensions|workflows|\.claude|\.gemini)$/;

/** Folders to watch: `any` for folders whose every file is a manifest (a plugin's folder), else the names that matter there. */
type WatchSet = Map<string, "any" | Set<string>>;

/**
 * Watches the folders the host's manifests came from (plugin folders, command folders,
 * `.keel/workflows`, the discovery folders and `$KEEL_HOME`) and calls `changed` once per burst of
 * changes (debounced by `settleMs`). `rearm(host)` watches the folders of a reloaded host instead.
 * Folders that do not exist are skipped; watch errors only stop that folder's watching.
 */
export class ManifestWatcher {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly changed: (why: string) => void,
    private readonly settleMs = 100,
  ) {}

  /** Watches the folders of `host`'s manifests (replacing any earlier watch). */
  rearm(host: Host): void {
    this.unwatch();
    if (this.stopped) return;
    for (const [dir, names] of watchSet(host)) {
      if (!existsSync(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, (_event, file) => {
          const name = file ? String(file) : "";
          if (names === "any" || !name || names.has(name) || MANIFEST_NAME.test(name)) this.schedule(join(dir, name));
        });
        watcher.on("error", () => watcher.close());
        this.watchers.push(watcher);
      } catch {
        // A folder that cannot be watched (permissions, inotify limits) is not watched.
      }
    }
  }

  /** Stops watching for good. */
  stop(): void {
    this.stopped = true;
    this.unwatch();
  }

  private schedule(path: string): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) this.changed(`${path} changed`);
    }, this.settleMs);
  }

  private unwatch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }
}

/** The folders a host's manifests live in, with what to watch in each. */
function watchSet(host: Host): WatchSet {
  const ws = host.workspace;
  const set: WatchSet = new Map();
  const named = (file: string) => {
    const dir = dirname(file);
    const entry = set.get(dir);
    if (entry === "any") return;
    set.set(dir, (entry ?? new Set()).add(basename(file)));
  };
  // The discovery folders (a plugin may live at the workspace root) watch only manifest names: a
  // tool writing a file there must not reload the host.
  const discovery = new Set([...ancestorsWithin(ws.cwd, ws.root), ws.keelHome]);
  for (const dir of discovery) set.set(dir, new Set());
  const any = (dir: string) => discovery.has(dir) || set.set(dir, "any");
  for (const dir of [join(ws.root, "plugins"), join(ws.keelHome, "plugins"), join(ws.stateDir, "workflows")]) any(dir);
  for (const dir of [".claude/commands", ".gemini/commands", ".claude-plugin", ".codex-plugin", ".claw-plugin"]) any(join(ws.root, dir));
  const records = host.service("plugin-records");
  for (const r of records?.records() ?? []) {
    any(r.root);
    any(dirname(r.path));
  }
  for (const f of records?.failed() ?? []) any(dirname(f.file));
  for (const h of host.service("plugins")?.handOffs() ?? []) for (const dir of h.commands ?? []) any(dir);
  for (const file of host.service("workflows")?.files ?? []) named(file);
  for (const layer of host.configInfo.layers) named(layer.file);
  // Claude Code's settings are read in every discovery folder's `.claude/`: one added there counts too.
  for (const dir of ancestorsWithin(ws.cwd, ws.root)) for (const name of CLAUDE_SETTINGS_FILES) named(join(dir, ".claude", name));
  return set;
}
