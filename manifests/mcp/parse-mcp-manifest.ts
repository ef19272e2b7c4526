import { errorMessage, MAX_MANIFEST_BYTES, MAX_TIMER_MS, parseJsonText, readRegularFile, urlSecrets } from "../../core/index.js";
import { dirname, resolve } from "node:path";
import { hiddenCharacterProblem } from "../identifier-text.js";
import type { DiscoveredMcp, DiscoverOptions } from "./discover-mcp-servers.js";
import { MCP_DIAGNOSTIC_SOURCE as SOURCE } from "./discover-mcp-servers.js";
import { expandMap, expandVars, MAX_EXPANDED_CHARS, unsupportedForms, VAR_REFERENCE, type ExpansionBudget } from "./expand-vars.js";
import { literalSecrets } from "./literal-secrets.js";
import { resolveOAuth } from "./oauth-config.js";
import { LocalResourceSchema, McpServerEntrySchema, normalizeTransport } from "./mcp-manifest-schema.js";
import type { LocalResource, McpServerConfig, McpServerOrigin } from "./mcp-server-config.js";

/** Reads one manifest file and adds its servers and resources; failures become diagnostics. */
export function loadManifestFile(
  file: string,
  origin: McpServerOrigin,
  trusted: boolean,
  opts: DiscoverOptions,
  out: DiscoveredMcp,
  add: (s: McpServerConfig) => void,
): void {
  let doc: unknown;
  let text: string;
  try {
    text = readRegularFile(file, MAX_MANIFEST_BYTES);
  } catch (error) {
    opts.diagnostics.error(SOURCE, `MCP manifest cannot be read and was skipped: ${(error as Error).message}`, { file });
    return;
  }
  try {
    doc = parseJsonText(text);
  } catch (error) {
    opts.diagnostics.error(SOURCE, `MCP manifest is not valid JSON and was skipped: ${(error as Error).message}. Fix the JSON syntax.`, { file });
    return;
  }
  out.files.push(file);
  loadDocument(doc, dirname(file), origin, trusted, opts, out, add);
}

/** Adds the servers and resources of one parsed manifest document; invalid entries become diagnostics. */
export function loadDocument(
  doc: unknown,
  baseDir: string,
  origin: McpServerOrigin,
  trusted: boolean,
  opts: DiscoverOptions,
  out: DiscoveredMcp,
  add: (s: McpServerConfig) => void,
): void {
  const file = origin.file;
  if (!isObject(doc)) {
    opts.diagnostics.error(SOURCE, 'MCP manifest must be a JSON object with "mcpServers" ({name: {...}}) or "servers" ([{name, ...}]).', { file });
    return;
  }
  const entries: { name: string | undefined; raw: unknown; path: string }[] = [];
  if (doc.mcpServers !== undefined) {
    if (!isObject(doc.mcpServers)) opts.diagnostics.error(SOURCE, '"mcpServers" must be an object of {name: server}.', { file, path: "mcpServers" });
    else for (const [name, raw] of Object.entries(doc.mcpServers)) if (!isComment(name)) entries.push({ name, raw, path: `mcpServers.${name}` });
  }
  if (doc.servers !== undefined) {
    if (Array.isArray(doc.servers)) doc.servers.forEach((raw, i) => entries.push({ name: undefined, raw, path: `servers[${i}]` }));
    else if (isObject(doc.servers))
      for (const [name, raw] of Object.entries(doc.servers))
        if (!isComment(name)) entries.push({ name, raw, path: `servers.${name}` });
        else opts.diagnostics.error(SOURCE, '"servers" must be a list of {name, ...} objects.', { file, path: "servers" });
  }
  if (doc.mcpServers === undefined && doc.servers === undefined && doc.resources === undefined)
    opts.diagnostics.warn(SOURCE, 'MCP manifest has neither "mcpServers" nor "servers"; nothing was loaded.', { file });
  for (const e of entries) {
    if (isResourceOnly(e.raw)) {
      const name = e.name ?? (typeof e.raw.name === "string" && e.raw.name ? e.raw.name : undefined);
      out.resources.push(...parseResources(e.raw.resources, baseDir, name, file, `${e.path}.resources`, opts));
      continue;
    }
    const server = parseServer(e.name, e.raw, baseDir, { ...origin, path: e.path }, trusted, opts);
    if (server) add(server);
  }
  if (doc.resources !== undefined) out.resources.push(...parseResources(doc.resources, baseDir, undefined, file, "resources", opts));
}

function parseServer(
  key: string | undefined,
  raw: unknown,
  baseDir: string,
  origin: McpServerOrigin,
  trusted: boolean,
  opts: DiscoverOptions,
): McpServerConfig | undefined {
  const file = origin.file;
  const parsed = McpServerEntrySchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      opts.diagnostics.error(SOURCE, `Invalid MCP server entry (skipped): ${issue.message}.`, {
        file,
        path: [origin.path, ...issue.path.map(String)].join("."),
      });
    return undefined;
  }
  const s = parsed.data;
  const name = key ?? s.name;
  if (!name) {
    opts.diagnostics.error(SOURCE, 'Invalid MCP server entry (skipped): a server in the "servers" list needs a "name".', { file, path: origin.path });
    return undefined;
  }
  const hidden = hiddenCharacterProblem(name);
  if (hidden) {
    opts.diagnostics.error(SOURCE, `Invalid MCP server entry (skipped): its name ${hidden}.`, {
      file,
      path: key === undefined ? `${origin.path}.name` : origin.path,
    });
    return undefined;
  }
  const unset: string[] = [];
  const secrets: string[] = [];
  const budget: ExpansionBudget = { chars: MAX_EXPANDED_CHARS };
  const x = (v: string | undefined) => {
    if (v === undefined) return undefined;
    const e = expandVars(v, opts.env, budget);
    for (const name of e.unset) unset.push(name); // no spread: a string may hold 100,000s of references
    for (const secret of e.secrets) secrets.push(secret);
    return e.value;
  };
  let expanded;
  try {
    expanded = {
      command: x(s.command),
      args: (s.args ?? []).map((a) => x(a)!),
      env: expandMap(s.env ?? {}, opts.env, unset, secrets, budget),
      cwd: x(s.cwd),
      url: x(s.url),
      headers: expandMap(s.headers ?? {}, opts.env, unset, secrets, budget),
      oauth: s.oauth ? resolveOAuth(s.oauth, opts.env, unset, secrets, budget) : undefined,
    };
  } catch (error) {
    opts.diagnostics.error(SOURCE, `Invalid MCP server entry "${name}" (skipped): ${errorMessage(error)}`, { file, path: origin.path });
    return undefined;
  }
  const { command, args, env, cwd, url, headers, oauth } = expanded;
  reportUnsupportedForms(s, name, file, origin.path, opts);
  secrets.push(...literalSecrets({ url: s.url, headers: s.headers, env: s.env, args: s.args }));
  // A URL mixing `${VAR}` with a key written into it (`https://${MCP_HOST}/mcp/<key>/sse`) is no literal, yet its key is one.
  if (url && s.url?.includes("${")) secrets.push(...urlSecrets(url));
  const unsetVars = [...new Set(unset)];
  if (unsetVars.length)
    opts.diagnostics.error(
      SOURCE,
      `MCP server "${name}" uses unset environment variable${unsetVars.length > 1 ? "s" : ""} ${unsetVars.map((v) => "${" + v + "}").join(", ")} and will not be started. Export ${unsetVars.length > 1 ? "them" : "it"} or write \${${unsetVars[0]}:-default} in the manifest.`,
      { file, path: origin.path },
    );
  for (const field of ["startupTimeoutMs", "startup_timeout_ms", "toolTimeoutMs", "tool_timeout_ms"] as const) {
    const value = s[field];
    if (value !== undefined && value > MAX_TIMER_MS)
      opts.diagnostics.warn(
        SOURCE,
        `MCP server "${name}": ${field} is ${value} ms, more than the longest timeout keel can set (${MAX_TIMER_MS} ms, about 24.8 days); it is capped there. Set at most ${MAX_TIMER_MS}.`,
        { file, path: `${origin.path}.${field}` },
      );
  }
  return {
    name,
    transport: normalizeTransport(s.type ?? s.transport, s.url),
    command,
    args,
    env,
    // Without a `cwd`, stdio servers start in the workspace root (not wherever the keel process happens to run).
    cwd: cwd ? resolve(baseDir, cwd) : opts.workspace.root,
    ...(cwd ? {} : { defaultCwd: true }),
    url,
    headers,
    ...(oauth ? { oauth } : {}),
    enabled: s.enabled !== false && s.disabled !== true,
    enabledTools: s.enabledTools ?? s.enabled_tools,
    disabledTools: s.disabledTools ?? s.disabled_tools,
    startupTimeoutMs: s.startupTimeoutMs ?? s.startup_timeout_ms,
    toolTimeoutMs: s.toolTimeoutMs ?? s.tool_timeout_ms,
    lazy: s.lazy,
    sandbox: s.sandbox,
    declared: [s.command, s.args, s.env, s.cwd, s.url, s.headers, s.oauth, s.sandbox, s.enabledTools ?? s.enabled_tools, s.disabledTools ?? s.disabled_tools],
    resources: s.resources ? parseResources(s.resources, baseDir, name, file, `${origin.path}.resources`, opts) : [],
    origin,
    trustedByOrigin: trusted,
    unsetVars,
    secrets: [...new Set(secrets)],
    credentials: [
      ...new Set([
        ...literalSecrets({ url, headers, env, args }),
        ...[oauth?.clientSecret, oauth?.privateKey, oauth?.idp?.idToken].filter((v): v is string => Boolean(v)),
      ]),
    ],
  };
}

function parseResources(raw: unknown, baseDir: string, server: string | undefined, file: string, path: string, opts: DiscoverOptions): LocalResource[] {
  if (!Array.isArray(raw)) {
    opts.diagnostics.error(SOURCE, "`resources` must be a list of {name, text | path}.", { file, path });
    return [];
  }
  const out: LocalResource[] = [];
  raw.forEach((r, i) => {
    const parsed = LocalResourceSchema.safeParse(r);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      opts.diagnostics.error(SOURCE, `Invalid local resource (skipped): ${issue.message}.`, {
        file,
        path: [`${path}[${i}]`, ...issue.path.map(String)].join("."),
      });
      return;
    }
    const d = parsed.data;
    out.push({
      name: d.name,
      uri: d.uri ?? `keel-local://${server ?? "workspace"}/${encodeURIComponent(d.name)}`,
      description: d.description,
      mimeType: d.mimeType ?? "text/plain",
      text: d.text,
      path: d.path,
      baseDir,
      server,
      file,
    });
  });
  return out;
}

/** VS Code's predefined variables: in keel they would be environment variables, which are seldom set. */
const EDITOR_VARS = new Set(["workspaceFolder", "workspaceFolderBasename", "workspaceRoot", "userHome", "cwd", "file", "fileDirname", "pathSeparator"]);

/**
 * A warning for each `${…}` form keel leaves as written (`${input:token}`, `${env:HOME}`, `${VAR-x}`) in a field it
 * expands, naming the server, the field and the form: never a silent literal. And for VS Code's `${workspaceFolder}` &c.,
 * which keel reads as environment variables, a hint next to the unset-variable error.
 */
function reportUnsupportedForms(s: Record<string, unknown>, name: string, file: string, at: string, opts: DiscoverOptions): void {
  const fields: [string, unknown][] = [
    ["command", s.command],
    ["cwd", s.cwd],
    ["url", s.url],
    ...(Array.isArray(s.args) ? s.args.map((a, i): [string, unknown] => [`args[${i}]`, a]) : []),
    ...(["env", "headers"] as const).flatMap((key) => (isObject(s[key]) ? Object.entries(s[key]).map(([k, v]): [string, unknown] => [`${key}.${k}`, v]) : [])),
  ];
  for (const [field, value] of fields) {
    if (typeof value !== "string" || !value.includes("${")) continue;
    for (const form of new Set(unsupportedForms(value)))
      opts.diagnostics.warn(
        SOURCE,
        `MCP server "${name}": ${shorten(form)} in ${field} is not expanded and is passed as written: keel expands only \${VAR} and \${VAR:-default} from your environment (not VS Code's \${input:…} prompts or \${env:…}). Write \${VAR} and export VAR.`,
        { file, path: `${at}.${field}` },
      );
    for (const m of value.matchAll(VAR_REFERENCE))
      if (EDITOR_VARS.has(m[1]!) && opts.env[m[1]!] === undefined)
        opts.diagnostics.warn(
          SOURCE,
          `MCP server "${name}": \${${m[1]}} in ${field} is VS Code's, which keel does not set: keel reads it as an environment variable. Use a path relative to the server's cwd (the workspace root by default) instead.`,
          { file, path: `${at}.${field}` },
        );
  }
}

/** A form of a manifest as shown in a diagnostic: at most 60 characters. */
function shorten(form: string): string {
  return form.length > 60 ? `${form.slice(0, 57)}…` : form;
}

/** A key beginning with `_` (`"_comment"`) is a note for people, never a server. */
function isComment(key: string): boolean {
  return key.startsWith("_");
}

/** A reference-style entry (claw-code) with `resources` and neither `command` nor `url`: it only declares local resources. */
function isResourceOnly(raw: unknown): raw is Record<string, unknown> & { resources: unknown } {
  return isObject(raw) && raw.resources !== undefined && raw.command === undefined && raw.url === undefined && raw.httpUrl === undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
