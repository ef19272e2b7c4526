import { execa } from "execa";
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { name: string; dependencies: Record<string, string> };

/** An import or export specifier of a compiled file or declaration: `from "x"`, `import "x"`, `import("x")`. */
const SPECIFIER = /(?:^|[\s;})])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

/**
 * What `npm pack` (and so `npm publish`, and an install from the registry or a tarball) puts in the
 * package, listed offline by npm itself without running `prepare` (globalSetup has built dist/).
 * The full install-and-run check is bin/check-package.mjs (minutes, and its install needs the npm cache or the registry).
 */
let files: string[];
beforeAll(async () => {
  const packed = await execa("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--offline"], { cwd: REPO });
  files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
});

describe("the npm package", () => {
  it("ships the library, its declarations and the CLI", () => {
    for (const file of [
      "package.json",
      "README.md",
      "LICENSE",
      "bin/keel.js",
      "dist/lib/index.js",
      "dist/lib/index.d.ts",
      "dist/cli/keel-cli.js",
      "dist/bin/cli.js",
    ])
      expect(files).toContain(file);
  });

  it("ships nothing a consumer does not run: no tests, benchmarks, examples, sources, source maps, build state, .keel or secrets", () => {
    const unwanted = files.filter(
      (f) =>
        /^(test|bench|examples|core|lib|runtimes|plugins|manifests|\.keel|\.git|node_modules)\//.test(f) ||
        /^dist\/(bench|examples)\//.test(f) ||
        /(^|\/)\.(tsbuildinfo|env|npmrc|keel)(\/|$)|\.tsbuildinfo$|\.(pem|key)$/.test(f) ||
        (f.endsWith(".ts") && !f.endsWith(".d.ts")) ||
        // tsc's maps point at the .ts sources, which are not shipped; Node uses maps only under --enable-source-maps
        f.endsWith(".map") ||
        (f.startsWith("bin/") && f !== "bin/keel.js"),
    );
    expect(unwanted).toEqual([]);
  });

  it("every import of a shipped file resolves to a shipped file or a dependency (declarations included)", () => {
    const shipped = new Set(files);
    const dependencies = new Set(Object.keys(pkg.dependencies));
    const unresolved: string[] = [];
    for (const file of files) {
      if (!/\.(m?js|d\.ts)$/.test(file)) continue;
      for (const match of readFileSync(join(REPO, file), "utf8").matchAll(SPECIFIER)) {
        const spec = (match[1] ?? match[2] ?? match[3])!;
        if (spec.startsWith(".")) {
          const target = posix.normalize(posix.join(dirname(file), spec));
          if (!shipped.has(file.endsWith(".d.ts") ? target.replace(/\.js$/, ".d.ts") : target)) unresolved.push(`${file}: ${spec}`);
          continue;
        }
        const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
        if (spec.startsWith("node:") || builtinModules.includes(name) || dependencies.has(name) || name === pkg.name) continue;
        unresolved.push(`${file}: ${spec} (not in dependencies)`);
      }
    }
    expect(unresolved).toEqual([]);
  });
});
