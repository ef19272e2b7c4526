// Lint rules for keel (`npm run lint`, also run by .ci/run). Type-aware: test/tsconfig.json covers every file.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Outside core/, code reaches core only through its public entry points: `core/index.js` (the API) and `core/cli/index.js` (light CLI plumbing). */
const coreBoundary = {
  "no-restricted-imports": [
    "error",
    {
      patterns: [
        {
          regex: "^(\\.\\./)+core/(?!(cli/)?index\\.js$)",
          message:
            "Import from core's public entry points (core/index.js, or core/cli/index.js for CLI plumbing), not from core internals. Export what you need there.",
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "examples/demo/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { project: ["./test/tsconfig.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // keel matches control characters on purpose (terminal safety, escapes in output and names).
      "no-control-regex": "off",
    },
  },
  { files: ["runtimes/**/*.ts", "plugins/**/*.ts", "manifests/**/*.ts", "bin/**/*.ts", "lib/**/*.ts"], rules: coreBoundary },
  {
    // Tests may use `any` to read loosely typed JSON output; everything else stays strict.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  { files: ["**/*.js", "**/*.mjs", "**/*.cjs"], ...tseslint.configs.disableTypeChecked },
  { files: ["**/*.js", "**/*.mjs", "**/*.cjs"], languageOptions: { globals: globals.node } },
  prettier,
);
