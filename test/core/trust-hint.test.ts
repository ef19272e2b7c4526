import { describe, expect, it } from "vitest";
import { ASK_USER_TO_TRUST, forModel, modelReads, orTrustOnce, TRUST_ONCE } from "../../core/trust-hint.js";

describe("trust hints: the user's wording and the model's", () => {
  it("forModel puts ASK_USER_TO_TRUST in place of every way to trust for one run, and leaves other text as it is", () => {
    for (const clause of Object.values(TRUST_ONCE)) {
      expect(clause).toMatch(/--trust/);
      const message = `Run \`keel trust\`${clause} to use them.`;
      expect(forModel(message)).toBe(`Run \`keel trust\`${ASK_USER_TO_TRUST} to use them.`);
      expect(forModel(message)).toBe(`Run \`keel trust\`${orTrustOnce(true, clause)} to use them.`);
    }
    // One clause ends with another: the longer one is replaced whole.
    expect(forModel(`x${TRUST_ONCE.persistentOrOnce}.`)).toBe(`x${ASK_USER_TO_TRUST}.`);
    expect(forModel("grep -- --trust README.md")).toBe("grep -- --trust README.md");
  });

  it("modelReads: the user's command line and an embedding program read the user's wording; anyone else (a model) the model's", () => {
    for (const origin of [undefined, "cli", "api", "embed"]) expect(modelReads({ origin })).toBe(false);
    for (const origin of ["agent", "sub-agent", "mcp-serve", "workflow:a>b", "command:status", "someone"]) expect(modelReads({ origin })).toBe(true);
    // A workflow's steps say who reads them: the user who ran `keel workflow run`, or the model that called workflow_run.
    expect(modelReads({ origin: "workflow:a", readByModel: false })).toBe(false);
    expect(modelReads({ origin: "cli", readByModel: true })).toBe(true);
  });
});
