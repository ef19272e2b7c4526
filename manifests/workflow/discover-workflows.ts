import { type Diagnostics, errorMessage, MAX_MANIFEST_BYTES, parseJsonText, type PluginHandOff, readRegularFile } from "../../core/index.js";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { discoveryDirs, linkedIntoExcluded } from "../discovery-scope.js";
import { jsonType } from "../json-type.js";
import { tooDeepMessage } from "../manifest-depth.js";
import type { parseWorkflow } from "./parse-workflow.js";
import type { WorkflowDefinition, WorkflowOrigin } from "./workflow-schema.js";

/** Workflow manifest file names, looked for in each directory from the working directory up to the workspace root. */
export const WORKFLOW_MANIFEST_FILES = [".claw-workflows.json", ".claw-workflow.json"] as const;

/** Where to look for workflows. */
export interface WorkflowSources {
  /** Working directory (discovery starts here). */
  cwd: string;
  /** Workspace root (discovery never goes above it). */
  root: string;
  /** `<root>/.keel` (its `workflows/*.json` are read). */
  stateDir: string;
  /** Plugins' raw `workflows` (from the plugins service). */
  handOffs: PluginHandOff[];
}

/** Every loaded workflow (first definition of a name wins) and the files read. */
export interface WorkflowCatalog {
  workflows: WorkflowDefinition[];
  files: string[];
}

/**
 * Discovers and parses workflows: `.claw-workflows.json` / `.claw-workflow.json` from `cwd` up to
 * the workspace root (nearest first; never inside `node_modules/`, `.git/` or `.keel/worktrees/`),
 * `.keel/workflows/*.json`, then plugin-contributed ones. Never throws: unreadable files, invalid
 * JSON, invalid workflows and duplicate names (matched case-insensitively; a user-level workflow
 * wins over a workspace one, otherwise the first wins) become diagnostics naming the file, JSON
 * path and reason.
 */
export async function discoverWorkflows(sources: WorkflowSources, diagnostics: Diagnostics): Promise<WorkflowCatalog> {
  const catalog: WorkflowCatalog = { workflows: [], files: [] };
  const byName = new Map<string, WorkflowDefinition>();
  // The parser (and its zod schema) loads when there is a first workflow document: most workspaces have none.
  let parse: typeof parseWorkflow | undefined;
  const loadParser = async () => {
    parse ??= (await import("./parse-workflow.js")).parseWorkflow;
  };
  const add = (raw: unknown, at: PropertyKey[], origin: Omit<WorkflowOrigin, "path">) => {
    const parsed = parse!(raw, at, origin);
    for (const issue of parsed.issues)
      diagnostics.add({ severity: issue.severity, source: "workflow", file: origin.file, path: issue.path || undefined, message: issue.message });
    const wf = parsed.workflow;
    if (!wf) return;
    const first = byName.get(wf.name.toLowerCase());
    if (first && wf.origin.userLevel && !first.origin.userLevel) {
      // A user-level workflow is never displaced by one of the workspace.
      byName.set(wf.name.toLowerCase(), wf);
      catalog.workflows[catalog.workflows.indexOf(first)] = wf;
      diagnostics.warn(
        "workflow",
        `Workflow "${first.name}" defined here is ignored: the user-level workflow "${wf.name}" in ${wf.origin.file} at ${wf.origin.path} has the same name (names match case-insensitively), and a workspace may not replace a user-level workflow. Rename this one to use both.`,
        { file: first.origin.file, path: first.origin.path },
      );
      return;
    }
    if (first) {
      diagnostics.warn(
        "workflow",
        `Workflow "${wf.name}" is defined more than once (names match case-insensitively); the definition in ${first.origin.file} at ${first.origin.path} is used and this one is ignored.`,
        { file: origin.file, path: wf.origin.path },
      );
      return;
    }
    byName.set(wf.name.toLowerCase(), wf);
    catalog.workflows.push(wf);
  };

  for (const dir of discoveryDirs(sources.cwd, sources.root)) {
    for (const name of WORKFLOW_MANIFEST_FILES) {
      const file = join(dir, name);
      const json = await readJson(file, sources.root, diagnostics);
      if (json === undefined) continue;
      catalog.files.push(file);
      await loadParser();
      eachWorkflow(json, file, diagnostics, (raw, at) => add(raw, at, { kind: "file", file, userLevel: false }), false);
    }
  }
  const keelDir = join(sources.stateDir, "workflows");
  const names = await readdir(keelDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
    const file = join(keelDir, name);
    const json = await readJson(file, sources.root, diagnostics);
    if (json === undefined) continue;
    catalog.files.push(file);
    await loadParser();
    eachWorkflow(json, file, diagnostics, (raw, at) => add(raw, at, { kind: "file", file, userLevel: false }), true);
  }
  if (sources.handOffs.some((h) => h.workflows.length)) await loadParser();
  for (const handOff of sources.handOffs) {
    const file = handOff.workflowsFile ?? handOff.manifestPath;
    handOff.workflows.forEach((raw, i) => add(raw, ["workflows", i], { kind: "plugin", file, plugin: handOff.plugin, userLevel: handOff.userLevel }));
  }
  return catalog;
}

/** Calls `fn` for each workflow in a manifest: `{workflows: [...]}` and/or `{workflow: {...}}` (and, in `.keel/workflows/`, a bare workflow or a list). */
function eachWorkflow(json: unknown, file: string, diagnostics: Diagnostics, fn: (raw: unknown, at: PropertyKey[]) => void, bare: boolean): void {
  if (Array.isArray(json) && bare) return json.forEach((raw, i) => fn(raw, [i]));
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    diagnostics.error(
      "workflow",
      `A workflow manifest must be a JSON object with "workflows" (a list) or "workflow" (an object); got ${jsonType(json)}. The file was skipped.`,
      { file },
    );
    return;
  }
  const obj = json as Record<string, unknown>;
  if (bare && obj.workflows === undefined && obj.workflow === undefined && obj.name !== undefined) return fn(obj, []);
  if (obj.workflows === undefined && obj.workflow === undefined) {
    diagnostics.warn("workflow", `No "workflows" list or "workflow" object found; the file defines no workflows.`, { file });
    return;
  }
  if (obj.workflows !== undefined) {
    if (Array.isArray(obj.workflows)) obj.workflows.forEach((raw, i) => fn(raw, ["workflows", i]));
    else diagnostics.error("workflow", `workflows must be a list (got ${jsonType(obj.workflows)}); it was skipped.`, { file, path: "workflows" });
  }
  if (obj.workflow !== undefined) fn(obj.workflow, ["workflow"]);
}

async function readJson(file: string, root: string, diagnostics: Diagnostics): Promise<unknown> {
  const linked = linkedIntoExcluded(root, file);
  if (linked) {
    diagnostics.warn("workflow", linked, { file });
    return undefined;
  }
  let text: string;
  try {
    text = readRegularFile(file, MAX_MANIFEST_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") diagnostics.error("workflow", `Cannot read the workflow manifest: ${errorMessage(error)}`, { file });
    return undefined;
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    diagnostics.error("workflow", `The workflow manifest is not valid JSON (${errorMessage(error)}); it was skipped.`, { file });
    return undefined;
  }
  const deep = tooDeepMessage(value);
  if (deep) diagnostics.error("workflow", `The workflow manifest cannot be used: ${deep}; it was skipped.`, { file });
  return deep ? undefined : value;
}
