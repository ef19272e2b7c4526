import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { toMarkdown, type Bench, type BenchReport } from "./harness.js";

/**
 * `npm run bench`: runs every `bench/*.bench.ts` (compiled) in turn, prints Markdown tables,
 * and with `--write` puts them into bench/README.md (replacing the sections it measured). `--only NAME` filters.
 */
async function main(): Promise<void> {
  const here = dirname(fileURLToPath(import.meta.url));
  const args = process.argv.slice(2);
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
  const files = readdirSync(here)
    .filter((f) => f.endsWith(".bench.js") && (!only || f.includes(only)))
    .sort();
  const reports: BenchReport[] = [];
  for (const file of files) {
    process.stderr.write(`running ${file}...\n`);
    const mod = (await import(join(here, file))) as { default: Bench };
    const report = await mod.default();
    reports.push(report);
    process.stdout.write(toMarkdown([report]) + "\n");
  }
  if (args.includes("--write")) {
    const readme = join(here, "..", "..", "bench", "README.md");
    const text = readFileSync(readme, "utf8");
    const start = text.indexOf("<!-- results:start -->");
    const end = text.indexOf("<!-- results:end -->");
    if (start === -1 || end === -1) throw new Error("bench/README.md lacks the results markers");
    const stamp = `_Measured ${new Date().toISOString()} on Node ${process.version}, ${process.platform}/${process.arch}._`;
    // Sections of earlier runs stay unless this run measured them again (`--only` updates one section).
    const sections = splitSections(text.slice(start + "<!-- results:start -->".length, end));
    for (const r of reports) sections.set(r.title, toMarkdown([r], stamp));
    writeFileSync(readme, `${text.slice(0, start)}<!-- results:start -->\n${[...sections.values()].join("\n")}${text.slice(end)}`);
  }
}

/** The `### title` sections of the results block, by title, in order. */
function splitSections(block: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of block.split(/^(?=### )/m)) {
    const title = /^### (.+)$/m.exec(part)?.[1];
    if (title && part.startsWith("### ")) out.set(title, part.trimEnd() + "\n");
  }
  return out;
}

await main();
