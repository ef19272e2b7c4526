import { analyzeShell, type ShellAnalysis, type ShellParser } from "./shell-analysis.js";
import { baseName } from "./unwrap-command.js";
import type { Wildcard } from "./wildcard.js";

/** Shell control operators, substitutions and redirections, as written in a rule. */
const SHELL_META = /[;&|\n\r`<>]|\$\(/;

/** A shell command line under a permission check: parsed once, asked by every rule. */
export class ShellCall {
  private readonly analysis: ShellAnalysis;
  private forms: string[] | undefined;

  /** Without a parser (not loaded yet) nothing can be checked: the whole command is unresolved (failing closed). */
  constructor(
    readonly command: string,
    parser: ShellParser | undefined,
  ) {
    this.analysis = parser ? analyzeShell(command, parser) : { commands: [], unresolved: ["the shell parser is not loaded"], simple: false };
  }

  /** Parts keel could not resolve statically (empty when the whole line was checked). */
  get unresolved(): readonly string[] {
    return this.analysis.unresolved;
  }

  /** Whether `test` matches any simple command of the line, as written or with its name reduced to a base name (`/bin/rm x` → `rm x`). */
  anyCommand(test: (text: string) => boolean): boolean {
    this.forms ??= this.analysis.commands.flatMap(({ argv }) => {
      const written = argv.join(" ");
      const base = baseName(argv[0]!);
      return base === argv[0] ? [written] : [written, [base, ...argv.slice(1)].join(" ")];
    });
    return this.forms.some(test);
  }

  /**
   * Whether an allow rule with this specifier covers the line: it must be one static simple command
   * (no list, pipeline, substitution, redirection or unresolved part) whose words match. A rule that
   * itself spells out shell operators is matched against the whole line, and only when everything
   * in the line was resolved and its stars take no operator (`bash(git log | head*)` allows `git log |
   * head -5`, never `git log | head; rm x`: the operators of the line are the rule's own).
   */
  allowedBy(spec: string, match: Wildcard): boolean {
    if (this.analysis.unresolved.length) return false;
    if (SHELL_META.test(spec)) return match.stars(this.command)?.every((text) => !SHELL_META.test(text)) ?? false;
    return this.analysis.simple && match.test(this.analysis.commands[0]!.argv.join(" "));
  }
}
