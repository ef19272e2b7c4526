import { execa } from "execa";
import { fileURLToPath } from "node:url";

/**
 * vitest globalSetup: compiles and bundles keel once per test run, so the whole-process tests
 * (`bin/keel.js` runs `dist/cli/`) never run a stale build. Fails the run with the compiler's output on a type error.
 */
export default async function buildOnce(): Promise<void> {
  // keel frames and escapes its output in a CI runner's log (core/cli/ci-log-commands.ts); the tests
  // assert its output as printed anywhere else, also when the suite itself runs on such a runner.
  delete process.env.GITHUB_ACTIONS;
  delete process.env.TF_BUILD;
  // keel sends its requests through the proxy these name (core/net/proxy-settings.ts); the tests talk to
  // servers on 127.0.0.1, which a machine's proxy (one set for reaching the npm registry) cannot reach. The
  // proxy tests set their own.
  for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"]) delete process.env[name];
  const root = fileURLToPath(new URL("..", import.meta.url));
  const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
  const r = await execa("node", [tsc, "-p", "tsconfig.json"], { cwd: root, reject: false, all: true });
  if (r.exitCode !== 0) throw new Error(`keel does not compile (tsc -p tsconfig.json):\n${r.all}`);
  // The executable runs the bundle (bin/keel.js): built from the fresh output, as `npm run build` does.
  const b = await execa("node", ["bin/bundle-cli.mjs"], { cwd: root, reject: false, all: true });
  if (b.exitCode !== 0) throw new Error(`keel's CLI bundle failed (node bin/bundle-cli.mjs):\n${b.all}`);
}
