/**
 * Where a position in a bash command line is, lexically: what a value inserted there must look like
 * to stay one literal piece of text. Tracks quotes, escapes, `$(…)`, `<(…)`, `(…)`, `` `…` ``, `${…}`,
 * arithmetic, `$'…'`, comments and here-document bodies, as far as a template's own text needs.
 */
export type ShellSpot =
  /** Outside quotes (also inside `$(…)`): a single-quoted word. */
  | "plain"
  /** Inside '…': the value with each `'` written `'\''`. */
  | "single"
  /** Inside "…": the value with `\`, `$`, `` ` `` and `"` escaped. */
  | "double"
  /** Anywhere else (after a `\`, inside `` `…` ``, `${…}`, `$((…))`, `((…))`, `$[…]`, `$'…'`, a comment or a here-document): no quoting is safe. */
  | "unsafe";

type Frame = "plain" | "sub" | "group" | "single" | "double" | "ansi" | "backtick" | "param" | "arith" | "arithb" | "comment" | "heredoc";

/** Frames where a `\` and a newline are a line continuation. */
const CONTINUED: ReadonlySet<Frame> = new Set(["plain", "sub", "group", "double", "param"]);

/** A bash lexer fed a command line piece by piece; `spot` says how a value inserted at the end would be read. */
export class ShellLexer {
  private stack: Frame[] = ["plain"];
  private escaped = false;
  private wordStart = true;
  private depth = 0;
  /** Text of the current line after `<<` (its delimiter words), and delimiters whose bodies start at the next newline. */
  private heredocLine: string | undefined;
  private pending: { word: string; strip: boolean }[] = [];
  private body: { word: string; strip: boolean }[] = [];
  private line = "";
  /** The character plain text had before this one. */
  private prev = "";
  /** The text fed so far ends with an unescaped `$` (a value right after it would be read as `$'…'` or `$"…"`). */
  private dollar = false;
  /** The plain characters of the current word (quotes and expansions spoil it), to find the reserved word `case`. */
  private word = "";
  /**
   * A `case` inside `$(…)` or `<(…)`: its patterns end in a `)` bash does not count (`"$(case a in a) echo X;; esac)"`),
   * which this lexer would read as the end of the substitution, and then think the rest quoted; or a line continuation
   * inside a word (see step): every spot after it is unsafe.
   */
  private lost = false;
  /** The character fed before this one, whatever its frame. */
  private last = "";

  /** Feeds more of the command line. */
  feed(text: string): void {
    for (let i = 0; i < text.length; i++) i += this.step(text, i);
  }

  /**
   * `value` written for the spot after the text fed so far, and fed: one single-quoted word outside quotes
   * (with `''` first after a `$`, so it is never read as `$'…'`), each `'` written `'\''` inside '…', `\ $ \` "`
   * escaped inside "…" (after a `$` the quotes are closed and opened first). `unsafe` when no quoting holds
   * there (see `spot`): the text is then one single-quoted word all the same, and the command must not run.
   */
  insert(value: string): { text: string; unsafe: boolean } {
    const spot = this.spot();
    const text =
      spot === "single"
        ? value.replaceAll("'", `'\\''`)
        : spot === "double"
          ? `${this.dollar ? '""' : ""}${value.replace(/[\\$`"]/g, "\\$&")}`
          : `${this.dollar ? "''" : ""}'${value.replaceAll("'", `'\\''`)}'`;
    this.feed(text);
    return { text, unsafe: spot === "unsafe" };
  }

  /** How a value inserted after the text fed so far would be read. */
  spot(): ShellSpot {
    if (this.escaped || this.lost) return "unsafe";
    const top = this.top();
    if (top === "single" && this.literalQuotes()) return "unsafe";
    return top === "plain" || top === "sub" || top === "group" ? "plain" : top === "single" ? "single" : top === "double" ? "double" : "unsafe";
  }

  /**
   * True when the '…' open here is inside a `${…}` inside "…": bash pairs those quotes but does not quote with them
   * (`"${v:-'$(cmd)'}"` runs cmd), so a value in them would stand as in "…" unescaped.
   */
  private literalQuotes(): boolean {
    const param = this.stack.lastIndexOf("param");
    return param !== -1 && param === this.stack.length - 2 && this.stack.slice(0, param).includes("double");
  }

  private top(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  /** Consumes `text[i]` (and returns how many more characters it consumed with it). */
  private step(text: string, i: number): number {
    const c = text[i]!;
    const next = text[i + 1] ?? "";
    const top = this.top();
    const before = this.last;
    this.last = c;
    // A line continuation (`\` and a newline) is removed before bash reads words: inside a word it joins what is around it
    // (`$\⏎(…)` is `$(…)`, `<\⏎<EOF` a here-document), which this lexer, reading the characters as written, does not follow.
    if (c === "\\" && next === "\n" && !this.escaped && CONTINUED.has(top) && !/^[ \t\n]?$/.test(before)) this.lost = true;
    const wasDollar = this.dollar;
    this.dollar = false;
    if (this.heredocLine !== undefined && c !== "\n" && top !== "heredoc") this.heredocLine += c;
    if (top === "heredoc") {
      this.line += c;
      if (c === "\n") this.endBodyLine();
      return 0;
    }
    if (this.escaped) {
      this.escaped = false;
      // (a line continuation, `\` and a newline, is removed: the word goes on as before it)
      if (c !== "\n") this.wordStart = false;
      return 0;
    }
    switch (top) {
      case "single":
        if (c === "'") this.stack.pop();
        return 0;
      case "ansi":
        if (c === "\\") this.escaped = true;
        else if (c === "'") this.stack.pop();
        return 0;
      case "comment":
        if (c === "\n") {
          this.stack.pop();
          this.newline();
        }
        return 0;
      case "backtick":
        if (c === "\\") this.escaped = true;
        else if (c === "`") this.stack.pop();
        return 0;
      case "arith":
        if (c === "(") this.depth++;
        else if (c === ")" && this.depth > 0) this.depth--;
        else if (c === ")" && next === ")") {
          this.stack.pop();
          return 1;
        }
        return 0;
      case "arithb":
        if (c === "[") this.depth++;
        else if (c === "]" && this.depth > 0) this.depth--;
        else if (c === "]") this.stack.pop();
        return 0;
      case "double":
        return this.expansion(c, next, wasDollar) ?? (c === '"' ? (this.stack.pop(), 0) : 0);
      case "param":
        if (c === "}") {
          this.stack.pop();
          return 0;
        }
        // (bash pairs '…' inside ${…} even within "…")
        if (c === "'") this.stack.push("single");
        else if (c === '"') this.stack.push("double");
        else return this.expansion(c, next, wasDollar) ?? 0;
        return 0;
      default:
        return this.plain(c, next, wasDollar);
    }
  }

  /** `\`, `$`, `$(`, `${`, `$((`, `` ` `` where expansions happen (plain, double quotes, `${…}`); undefined for another character. */
  private expansion(c: string, next: string, wasDollar: boolean): number | undefined {
    if (c === "\\") {
      this.escaped = true;
      return 0;
    }
    if (c === "`") {
      this.stack.push("backtick");
      return 0;
    }
    if (c === "$") {
      this.dollar = true;
      return 0;
    }
    if (wasDollar && c === "(") {
      if (next === "(") {
        this.depth = 0;
        this.stack.push("arith");
        return 1;
      }
      this.stack.push("sub");
      this.word = "";
      return 0;
    }
    if (wasDollar && c === "[") {
      // $[…]: old arithmetic
      this.depth = 0;
      this.stack.push("arithb");
      return 0;
    }
    if (wasDollar && c === "{") {
      this.stack.push("param");
      return 0;
    }
    return undefined;
  }

  private plain(c: string, next: string, wasDollar: boolean): number {
    const top = this.top();
    const prev = this.prev;
    this.prev = c;
    if (wasDollar && c === "'") {
      this.stack.push("ansi");
      return 0;
    }
    const expanded = this.expansion(c, next, wasDollar);
    if (expanded !== undefined) {
      // (after a `\` the escaped character decides)
      if (c !== "\\") this.wordStart = this.top() === "sub" && c === "(";
      return expanded;
    }
    if (c === "'") this.stack.push("single");
    else if (c === '"') this.stack.push("double");
    else if (c === "#" && this.wordStart) {
      this.stack.push("comment");
      return 0;
    } else if (c === "(" && next === "(" && this.wordStart) {
      // ((…)): arithmetic, where '…' does not quote (`(( 'a[$(cmd)]' ))` runs cmd)
      this.depth = 0;
      this.stack.push("arith");
      return 1;
    } else if (c === "(") {
      // <(…) and >(…) are substitutions inside a word, as $(…) is; (…) is a group
      this.stack.push(prev === "<" || prev === ">" ? "sub" : "group");
    } else if (c === ")" && (top === "sub" || top === "group")) {
      this.stack.pop();
      // `$(…)#x` goes on as one word; after `(…)` a # starts a comment
      this.wordStart = top === "group";
      return 0;
    } else if (c === "<" && next === "<" && this.heredocLine === undefined) {
      this.heredocLine = "";
      this.wordStart = true;
      return 1;
    }
    if (c === "\n") this.newline();
    this.wordStart = /[\s;&|()<>]/.test(c);
    if (!this.wordStart) this.word += c;
    else {
      if (this.word === "case" && this.stack.includes("sub")) this.lost = true;
      this.word = "";
    }
    return 0;
  }

  /** A newline outside quotes: here-documents named on the line start their bodies. */
  private newline(): void {
    if (this.heredocLine !== undefined) {
      for (const part of this.heredocLine.split("<<")) {
        if (part.startsWith("<")) continue; // <<< word: a here-string
        const m = /^(-?)\s*(?:'([^']*)'|"([^"]*)"|\\?([^\s'"\\;&|<>()]+))(?=[\s;&|<>()]|$)/.exec(part);
        // a delimiter keel cannot read (E"O"F) never ends the body: every placeholder after it is refused
        this.pending.push({ word: m ? (m[2] ?? m[3] ?? m[4]!) : "\0", strip: m?.[1] === "-" });
      }
      this.heredocLine = undefined;
    }
    if (this.pending.length) {
      this.body = this.pending;
      this.pending = [];
      this.line = "";
      this.stack.push("heredoc");
    }
  }

  private endBodyLine(): void {
    const current = this.body[0]!;
    const text = this.line.slice(0, -1);
    this.line = "";
    if ((current.strip ? text.replace(/^\t+/, "") : text) !== current.word) return;
    this.body.shift();
    if (!this.body.length) {
      this.stack.pop();
      this.wordStart = true;
    }
  }
}
