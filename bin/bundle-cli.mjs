// Bundles the compiled CLI (dist/bin/cli.js, from `tsc`) into dist/cli/: keel's own ~150 modules
// become a few files, so a command resolves, reads and links a handful of modules instead of every
// one (on Node 20, without a compile cache, that per-module work was most of `keel tools`' start-up;
// bench/README.md). Code split at every dynamic import: what loads lazily stays lazy. Packages stay
// external (imported from node_modules), except the two every command loads (tapable, commander:
// ~30 small CommonJS files, ~18 ms of a command's start-up on Node 20). `dist/cli/meta.json` maps
// each output file to the modules inside it (the start-up test reads it to check what a command loads).
// Run by `npm run build` after `tsc`; `bin/keel.js` falls back to dist/bin/cli.js when the bundle is
// missing or older than dist/bin/cli.js or tsc's build state (dist/.tsbuildinfo, rewritten by every tsc that emits).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Packages every command loads at start-up, bundled in (their many small CommonJS files cost more to load than their code). */
const BUNDLED = ["tapable", "commander"];
const dependencies = Object.keys(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).dependencies);
// Chunk names carry content hashes: start empty, so no chunk of an earlier build stays behind.
rmSync(new URL("../dist/cli", import.meta.url), { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { "keel-cli": "dist/bin/cli.js" },
  outdir: "dist/cli",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: dependencies.filter((name) => !BUNDLED.includes(name)).flatMap((name) => [name, `${name}/*`]),
  // The bundled CommonJS packages `require` Node built-ins: give each output file a real `require`.
  banner: { js: 'import { createRequire as __keelCreateRequire } from "node:module"; const require = __keelCreateRequire(import.meta.url);' },
  chunkNames: "chunks/[name]-[hash]",
  // Class and function names stay as written even where two modules' names collide in the bundle
  // (errors report `name`, and keel's error classes recognise their other copies by it).
  keepNames: true,
  metafile: true,
  logLevel: "warning",
});
const outputs = Object.fromEntries(Object.entries(result.metafile.outputs).map(([file, out]) => [file, Object.keys(out.inputs).sort()]));
writeFileSync(new URL("../dist/cli/meta.json", import.meta.url), JSON.stringify({ outputs }, null, 1) + "\n");
