import { relative, sep } from "node:path";
import {
  approveTrustItem,
  CALL_MARK,
  capUntrustedLimits,
  defineTool,
  forModel,
  type Host,
  modelReads,
  objectSchema,
  recordOwnLocalWrite,
  restrictUntrusted,
  ToolError,
  type ToolDefinition,
} from "../../core/index.js";
import { CONFIG_SOURCES, WRITABLE_SOURCES, type WritableSource } from "./config-source-lists.js";
import type { ConfigEntry } from "./config-view.js";
import { formatKeyPath, parseKeyPath, setAt } from "./key-path.js";

const SOURCE = { kind: "runtime", id: "config" } as const;
const sourceField = {
  type: "string",
  enum: [...CONFIG_SOURCES, "merged"],
  description: `One layer (${CONFIG_SOURCES.join(", ")}); default: the merged view`,
} as const;
const keyPath = { type: "string", minLength: 1, description: 'Dotted key path; quote keys containing dots: mcp["my.server"].lazy' } as const;

const obj = objectSchema;

/**
 * Callers that may write the user config: the user's own command line (`keel config set`, `keel call`)
 * and programs embedding keel. A model, a workflow step or an MCP client may not: the user level
 * applies to every project and every later command, so one approval (or `--yes`) in one repository
 * would otherwise widen permissions or redirect the model endpoint everywhere.
 */
const USER_CONFIG_WRITERS: ReadonlySet<string> = new Set(["cli", "api"]);

/**
 * Who calls, as these tools judge it: a `keel` command line inside a process keel started for a tool (`KEEL_CALL`
 * set: a model's bash call, a hook, an MCP server) is not the user's own command line — it may not write the user
 * config, show secrets, or have its change approved or recorded as yours. A guard, not a boundary (see refuseInToolProcess).
 */
function callerOf(origin: string | undefined, host: Host): string {
  const caller = origin ?? "api";
  return caller === "cli" && host.env[CALL_MARK] ? `a keel command run by a command keel started for a tool (${CALL_MARK} is set)` : caller;
}

const showSecretsField = {
  type: "boolean",
  description: "Show values that look like secrets (env, headers, keys, tokens) instead of hiding them; only from the user's own command line",
} as const;

/**
 * Whether a config tool may show secret-looking values: only when asked, and only to the user's own
 * command line or an embedding program (a model, a workflow step or an MCP client never sees them).
 */
function mayShowSecrets(show: boolean | undefined, origin: string | undefined, tool: string): boolean {
  if (!show) return false;
  if (USER_CONFIG_WRITERS.has(origin ?? "api")) return true;
  throw new ToolError(
    `${tool} shows secret-looking values only to the user's own command line, not to ${origin}. Ask the user to run \`keel config ${tool === "config_get" ? "get KEY" : "list"} --show-secrets\`, or read the value's file yourself if you are the user.`,
    "permission_denied",
  );
}

/** The note under a listing that hid values. */
const hiddenNote = (n: number) =>
  `(${n === 1 ? "1 value that looks like a secret is" : `${n} values that look like secrets are`} hidden: environment variables, headers, keys and tokens. The user can see them with \`keel config list --show-secrets\` or in the files named.)`;

/**
 * What a `config_set` of a workspace file (local, project) changes that widens once the workspace is
 * trusted: the keys an untrusted workspace may not set (`permissions.allow`, `model.baseUrl`, `hooks`,
 * …), a string `model` (trusted, it replaces your endpoint) and an agent limit (`agent.maxSteps`,
 * `agent.budgets.*`) above the one in force (`inForce`: the config keel runs with), judged as keel judges the file. The
 * permission layer then asks as for a write to keel.config.json: allow rules never approve it.
 */
function wideningWrite(
  input: { key_path: string; value?: unknown; source?: WritableSource },
  inForce: Record<string, unknown>,
): { file: string; what: string } | undefined {
  const source = input.source ?? "local";
  // the user config is written only from the user's own command line (refused for anyone else when the call runs)
  if (source === "user") return undefined;
  const layer = setAt({}, parseKeyPath(input.key_path), input.value, "config_set");
  // An agent limit above the one in force (yours: `agent.maxSteps` 3 lifted to 1000) widens too, once the workspace is trusted.
  const raised = capUntrustedLimits(layer.agent, inForce).capped.map((c) => c.key);
  const keys = [...restrictUntrusted(layer).ignored, ...(typeof layer.model === "string" ? ["model"] : []), ...raised];
  if (!keys.length) return undefined;
  return { file: source === "local" ? ".keel/config.local.json" : "the project config", what: `keel's config (its ${[...new Set(keys)].join(", ")})` };
}

/** The config views, loaded on the first config tool call (listing the tools loads none; key paths are needed by `controlWrite`, at once). */
const views = () => import("./config-view.js");

/** The config runtime's tools; every call re-reads the config files. */
export function configTools(host: Host): ToolDefinition[] {
  const ws = host.workspace;
  const shown = (file: string) => (file.startsWith(ws.root + sep) ? relative(ws.root, file) : file);
  const line = (e: ConfigEntry) => `${e.key} = ${JSON.stringify(e.value)}  (${e.source}: ${shown(e.file)})`;
  return [
    defineTool(
      obj({
        source: sourceField,
        prefix: { type: "string", description: "Only keys starting with this path" },
        limit: { type: "integer", minimum: 1 },
        show_secrets: showSecretsField,
      }),
      {
        name: "config_list",
        description: "List config keys with their values and the source each value came from (user < legacy < claude < project < local).",
        source: SOURCE,
        risk: ["read"],
        readOnly: true,
        async execute(input, ctx) {
          const reveal = mayShowSecrets(input.show_secrets, callerOf(ctx.run.origin, host), "config_list");
          const { ConfigView, checkSource } = await views();
          const source = checkSource(input.source);
          const view = await ConfigView.load(ws, host.configTrusted);
          const prefix = input.prefix === undefined ? undefined : formatKeyPath(parseKeyPath(input.prefix));
          const all = view
            .entries(source, !reveal)
            .filter((e) => !prefix || e.key === prefix || e.key.startsWith(prefix + ".") || e.key.startsWith(prefix + "["));
          const entries = all.slice(0, input.limit ?? 200);
          const hidden = entries.filter((e) => e.hidden).length;
          const layers = view.layers.map((l) => ({ source: l.source, file: l.file, ...(l.error ? { error: l.error } : {}) }));
          // What the host ignored, translated or could not use in these files (untrusted keys, unknown keys, code config files).
          // A model reads them told to ask the user to trust, never a way to trust for one run (see forModel).
          const toModel = modelReads(ctx.run);
          const warnings = host.diagnostics.items
            .filter((d) => d.source === "config" && d.severity !== "info")
            .map((d) => (toModel ? { ...d, message: forModel(d.message) } : d));
          const text = [
            entries.length ? entries.map(line).join("\n") : "No config keys set" + (prefix ? ` under ${prefix}` : "") + ".",
            ...(entries.length < all.length ? [`(${entries.length} of ${all.length} keys; raise limit to see more)`] : []),
            ...(hidden ? [hiddenNote(hidden)] : []),
            `Layers read: ${
              view
                .parsed()
                .map((l) => `${l.source}: ${shown(l.file)}`)
                .join(", ") || "none"
            }`,
            ...view.broken.map((l) => `Skipped (cannot be parsed, left untouched): ${shown(l.file)}: ${l.error}`),
            ...warnings.map((d) => `${d.severity}: ${shown(d.file ?? "")}${d.path ? ` ${d.path}` : ""}: ${d.message}`),
          ].join("\n");
          return { content: text, data: { entries, total: all.length, hidden, layers, diagnostics: warnings } };
        },
      },
    ),
    defineTool(obj({ key_path: keyPath, source: sourceField, show_secrets: showSecretsField }, ["key_path"]), {
      name: "config_get",
      description: "Get one config value and the source (and file) it came from.",
      source: SOURCE,
      risk: ["read"],
      readOnly: true,
      async execute(input, ctx) {
        const reveal = mayShowSecrets(input.show_secrets, callerOf(ctx.run.origin, host), "config_get");
        const [{ ConfigView, checkSource }, { hideSecrets }] = await Promise.all([views(), import("./secret-values.js")]);
        const keys = parseKeyPath(input.key_path);
        const source = checkSource(input.source);
        const view = await ConfigView.load(ws, host.configTrusted);
        const hit = view.lookup(keys, source);
        const key = formatKeyPath(keys);
        if (!hit)
          return {
            ok: false,
            code: "precondition_failed",
            content: `${key} is not set${source ? ` in the ${source} config` : " in any config source"}. Use config_list (\`keel config list\`) to see the keys that are set, or config_set (\`keel config set KEY VALUE\`) to set it.`,
            data: { key, found: false },
          };
        const { value, hidden } = reveal ? { value: hit.value, hidden: 0 } : hideSecrets(keys, hit.value);
        const data = { key, value, source: hit.layer.source, file: hit.layer.file, sources: hit.sources, found: true, hidden };
        return {
          content: `${key} = ${JSON.stringify(value, null, 2)}\n(from ${hit.sources.length > 1 ? `sources ${hit.sources.join(", ")}; last: ` : ""}${hit.layer.source}: ${shown(hit.layer.file)})${hidden ? `\n${hiddenNote(hidden)}` : ""}`,
          data,
        };
      },
    }),
    defineTool(
      obj(
        {
          key_path: keyPath,
          value: { description: "Any JSON value" },
          source: { type: "string", enum: [...WRITABLE_SOURCES], description: "local (default), project or user" },
        },
        ["key_path", "value"],
      ),
      {
        name: "config_set",
        description:
          "Set a config value (JSON) in the local (.keel/config.local.json, default), project (keel.config.json or package.json#keel) or user ($KEEL_HOME/config.json; only from the user's own command line) file. Values of keys keel understands are validated; JS/TS and unparseable files are never written.",
        source: SOURCE,
        risk: ["write"],
        readOnly: false,
        permissionKey: "key_path",
        controlWrite: (input) => wideningWrite(input, host.config as Record<string, unknown>),
        async execute(input, ctx) {
          const caller = callerOf(ctx.run.origin, host);
          if (input.source === "user" && !USER_CONFIG_WRITERS.has(caller))
            throw new ToolError(
              `config_set may write the user config ($KEEL_HOME/config.json) only from the user's own command line, not from ${caller}: it applies to every project. Ask the user to run \`keel config set ${input.key_path} VALUE --source user\`, or write to source local or project.`,
              "precondition_failed",
            );
          const [{ setConfigValue }, { ConfigView }] = await Promise.all([import("./config-writer.js"), views()]);
          const keys = parseKeyPath(input.key_path);
          if ((input.source ?? "local") === "local") host.ensureStateDir();
          // The user's own change on top of approved settings stays approved (a change by anyone else waits for `keel trust`).
          // Approved is judged on the settings as they are just before the change, not as this host loaded them (a model may have changed them since).
          const own = USER_CONFIG_WRITERS.has(caller) && host.trust.approved !== undefined && host.configTrusted;
          const before = own ? (await ConfigView.load(ws, true)).wideningSettings(ws.root) : undefined;
          const result = await setConfigValue(ws, keys, input.value, input.source ?? "local", host.configTrusted);
          // Your own change to the local file is what keel records of its deny and ask rules (a list you set drops what you left out);
          // anyone else's change that removes one is held until you confirm it (see local-rules.ts).
          if (result.source === "local" && USER_CONFIG_WRITERS.has(caller)) await recordOwnLocalWrite(ws, keys).catch(() => undefined);
          if (own) {
            const widening = (await ConfigView.load(ws, true)).wideningSettings(ws.root);
            if (widening) await approveTrustItem(ws, widening, before);
          }
          const over = result.overriddenBy ? `\nNote: ${result.overriddenBy.source} (${shown(result.overriddenBy.file)}) sets ${result.key} too and wins.` : "";
          return {
            content: `Set ${result.key} = ${JSON.stringify(result.value)} in ${result.source} (${shown(result.file)}${result.created ? ", created" : ""}). It applies from the next command.${over}`,
            data: result,
          };
        },
      },
    ),
  ];
}
