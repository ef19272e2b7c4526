import { relative } from "node:path";
import { formatDiagnostic, inToolProcess, localConfigFiles, trackedByGit, trustApproves, type Host, type TrustItem } from "../../core/index.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** Which config files were read, and every diagnostic the host collected (config, plugins, MCP manifests, workflows, hooks): errors fail, warnings warn. */
export function configChecks(host: Host): DoctorCheck[] {
  const root = host.workspace.root;
  const show = (file: string) => (file.startsWith(root) ? relative(root, file) : file);
  const layers = host.configInfo.layers.map((l) => `${show(l.file)} (${l.source})`);
  const out = [
    check("config", "ok", layers.length ? `read ${layers.join(", ")}` : "no config files (defaults); `keel init` writes a starter keel.config.json"),
  ];
  for (const l of host.configInfo.broken)
    out.push(check("config", "fail", `${show(l.file)} cannot be parsed: ${l.error}`, "fix the file (keel never rewrites it)"));
  for (const d of host.diagnostics.items) {
    // Held trust items are listed once, by the trust check (and a held server by its own row).
    if (d.severity === "info" || d.source === "trust") continue;
    out.push(
      check(d.source || "config", d.severity === "error" ? "fail" : "warn", formatDiagnostic(d).replace(/^\s*(error|warning)\s*/, ""), fixFor(d.message)),
    );
  }
  return out;
}

/**
 * Local config files (`.keel/config.local.json`, `.claude/settings.local.json`) git tracks: yours, yet the
 * repository ships them, so a `git pull` or checkout replaces them with its copy (keel then holds the deny
 * and ask rules yours had, see local-rules.ts). One warning per tracked file; none when git tracks none. Never throws.
 */
export async function localConfigChecks(host: Host, signal: AbortSignal): Promise<DoctorCheck[]> {
  const root = host.workspace.root;
  const present = localConfigFiles(host.workspace).filter((f) => host.configInfo.layers.some((l) => l.file === f.file));
  if (!present.length) return [];
  const tracked = await trackedByGit(
    root,
    present.map((f) => f.file),
    host.env,
    signal,
  );
  return present
    .filter((f) => tracked.has(f.file))
    .map((f) =>
      check(
        "config",
        "warn",
        `git tracks ${f.key}, a local config file: it is yours, but the repository ships it, so a \`git pull\` or checkout replaces your copy with the repository's (keel then holds the deny and ask rules yours had, and says so, until you confirm with \`keel config confirm-local\`)`,
        `put rules meant for every project in $KEEL_HOME/config.json, and have the repository stop tracking the file (git rm --cached ${f.key}, keeping your copy)`,
      ),
    );
}

/**
 * Trust state: untrusted is a warning only when something in the workspace is ignored because of it
 * (`declared`: what `keel trust` would approve, each named in the message).
 */
export function trustCheck(host: Host, somethingIgnored: boolean, declared: readonly TrustItem[] = []): DoctorCheck {
  if (host.trusted) {
    const held = host.trustItems.filter((item) => !trustApproves(host.trust, item));
    if (held.length)
      return check(
        "trust",
        "warn",
        `this workspace is trusted, but ${held.length} item(s) were added or changed since and do not run: ${held.map((i) => `${i.kind} ${i.name}`).join(", ")}`,
        inToolProcess(host.env)
          ? "review them, then ask the user to run keel trust in their own terminal"
          : "review them, then keel trust (or --trust for one command)",
      );
    return check("trust", "ok", "this workspace is trusted (its servers, hooks, allow rules and shell steps may run)");
  }
  if (!somethingIgnored && declared.length === 0) return check("trust", "ok", "not trusted (nothing here needs it)");
  const named = declared.slice(0, 3).map((i) => `${i.kind} ${i.name}`);
  if (declared.length > 3) named.push(`${declared.length - 3} more (keel trust lists them)`);
  return check(
    "trust",
    "warn",
    `this workspace is not trusted: its MCP servers, allow rules and shell steps are ignored${named.length ? ` (${named.join(", ")})` : ""}`,
    inToolProcess(host.env) ? "ask the user to run keel trust in their own terminal" : "keel trust (or --trust for one command)",
  );
}

function fixFor(message: string): string | undefined {
  // keel's diagnostics already say what to do; point at trust when that is the cause.
  return /keel trust|--trust/.test(message) ? undefined : /trust/i.test(message) ? "keel trust" : undefined;
}
