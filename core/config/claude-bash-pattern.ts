/** A Claude Code `Bash(...)` specifier as keel `bash` specifiers, or why it cannot be translated. */
export type BashPatternTranslation = { specs: string[] } | { error: string };

/** Input fields of Claude Code's Bash tool, which `Bash(param:value)` parameter rules name. */
const BASH_PARAMS = new Set(["command", "description", "timeout", "run_in_background", "dangerouslyDisableSandbox"]);

/** Parameter names that are never a command, so `name:*` is a parameter rule, not the legacy prefix form. */
const NEVER_COMMANDS = new Set(["description", "run_in_background", "dangerouslyDisableSandbox"]);

/**
 * Translates the specifier of a Claude Code `Bash(...)` rule into keel `bash(...)` specifiers
 * (`*` is any text in both). `*` alone is every command (returned as no specifier: `[""]` means the
 * bare tool). The legacy suffix `:*` is a trailing ` *` (`curl:*` ≡ `curl *`); a trailing ` *` that is
 * the pattern's only wildcard also matches the bare command, so it yields two specifiers
 * (`curl` and `curl *`: `curl --version`, not `curlx`). Parameter rules such as
 * `Bash(run_in_background:true)` have no keel equivalent and return an error. Pure; never throws.
 */
export function claudeBashToSpecs(spec: string): BashPatternTranslation {
  if (spec.trim() === "") return { error: "the command pattern is empty" };
  if (spec.trim() === "*") return { specs: [""] };
  const param = /^\s*([A-Za-z_]\w*)\s*:(.*)$/s.exec(spec);
  const legacy = /^(.*?)\s*:\*$/s.exec(spec);
  if (param && BASH_PARAMS.has(param[1]!) && (!legacy || NEVER_COMMANDS.has(param[1]!)))
    return { error: `"${param[1]}:" makes it a parameter rule (Tool(param:value)), which keel's bash rules cannot express` };
  const pattern = legacy ? `${legacy[1]} *` : spec;
  if (legacy && legacy[1]!.trim() === "") return { specs: [""] };
  const stars = pattern.split("*").length - 1;
  if (stars === 1 && pattern.endsWith(" *")) return { specs: [pattern.slice(0, -2).trimEnd(), pattern] };
  return { specs: [pattern] };
}
