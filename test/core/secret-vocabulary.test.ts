import { describe, expect, it } from "vitest";
import { maskCommand } from "../../core/mask-command.js";
import { looksSecret } from "../../core/secret-env.js";
import { literalSecrets } from "../../manifests/mcp/literal-secrets.js";
import { isSecretValue } from "../../runtimes/config/secret-values.js";

/**
 * One name or value judged in every place keel decides "looks like a secret". Each verdict is `H` (hidden,
 * redacted or masked) or `.` (shown), in this order:
 *   env     a variable in the environment of a command the model runs (core/secret-env.ts)
 *   mcpEnv  a literal value in an MCP server's `env` (manifests/mcp/literal-secrets.ts)
 *   header  a literal value in an MCP server's `headers`
 *   arg     a literal value after an option in an MCP server's `args` (`--db-pass X`)
 *   config  a config value under that key, as config_list shows it (runtimes/config/secret-values.ts)
 *   cmdVar  `NAME=value ./run` in a command line shown in events and approvals (core/mask-command.ts)
 *   cmdOpt  `./run --name value` in such a command line
 */
const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1qb2IiLCJpYXQiOjE3MDB9.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
const V = "s3cr3t-value-1234";

/** [name, value, verdicts]: names judged with an opaque value; value shapes under the neutral name NOTE. */
const TABLE: readonly (readonly [string, string, string])[] = [
  ["GITHUB_TOKEN", V, "HHHHHHH"],
  ["AWS_SECRET_ACCESS_KEY", V, "HHHHHHH"],
  ["PGPASSWORD", V, "HHHHHHH"],
  ["DB_PASSWORD", V, "HHHHHHH"],
  ["DB_PASS", V, "HHHHHHH"],
  ["dbPass", V, "HHHHHHH"],
  ["SMTP_PWD", V, "HHHHHHH"],
  ["MYSQL_PWD", V, "HHHHHHH"],
  ["PWD", "/home/me/project", "...H..H"],
  ["OLDPWD", "/home/me", "......."],
  ["GITHUB_PAT", V, "HHHHHHH"],
  ["CI_JOB_JWT", V, "HHHHHHH"],
  ["SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T0/B0/XYZSECRET", "HHHHHHH"],
  ["slackWebhookUrl", "https://hooks.slack.com/services/T0/B0/XYZSECRET", "HHHHHHH"],
  ["npm_config__auth", V, "HHHHHHH"],
  ["BASIC_AUTH", V, "HHHHHHH"],
  ["DOCKER_AUTH_CONFIG", V, "HHHHHHH"],
  ["SESSION_COOKIE", V, "HHHHHHH"],
  ["AZURE_STORAGE_CONNECTION_STRING", V, "HHHHHHH"],
  ["DEPLOY_CREDS", V, "HHHHHHH"],
  ["SIGNING_PRIVATE", V, "HHHHHHH"],
  ["KEYCLOAK_CLIENT_SECRET", V, "HHHHHHH"],
  ["SESSION_SECRET", V, "HHHHHHH"],
  ["SESSION_ID", V, ".HHH.HH"],
  ["x-api-key", V, "HHHHHHH"],
  ["Authorization", "Bearer abcdefgh12345678", "HHHHHHH"],
  ["Private-Token", V, "HHHHHHH"],
  ["X-Hub-Signature", V, ".HHHHHH"],
  ["apiKey", V, "HHHHHHH"],
  ["clientSecret", V, "HHHHHHH"],
  ["apiKeyEnv", "OPENAI_API_KEY", "HHHH.HH"],
  ["apiKeyHelper", "/usr/local/bin/get-key", "HHHH.HH"],
  ["tokenFile", "/home/me/.token", "HHHH.HH"],
  ["tokenUrl", "https://auth.example.com/token", "HHHH.HH"],
  ["SSL_KEY_FILE", "/etc/ssl/k.pem", ".HHH.HH"],
  ["SSH_AUTH_SOCK", "/run/user/1000/ssh.sock", ".HHH.HH"],
  ["TOKENIZERS_PARALLELISM", "false", "......."],
  ["GOPRIVATE", "github.com/acme/*", "......."],
  ["PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring", "......."],
  ["KEYCLOAK_URL", "https://sso.example.com", "......."],
  ["XDG_SESSION_TYPE", "wayland", ".HHHHHH"],
  ["DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus", ".HHHHHH"],
  ["GIT_AUTHOR_NAME", "Jane Doe", "......."],
  ["OAUTH_CLIENT_ID", "keel-cli", ".HHH.HH"],
  ["AUTH_URL", "http://localhost:3000", ".HHH.HH"],
  ["NEXTAUTH_URL", "http://localhost:3000", ".HHH.HH"],
  ["AUTH_TRUST_HOST", "true", ".HHHHHH"],
  ["GIT_ASKPASS", "/usr/lib/git-core/git-gui--askpass", "......."],
  ["DEBUG", "true", "......."],
  ["HOME", "/home/me", "......."],
  ["NOTE", "Bearer abcdefgh12345678", "HHHHHHH"],
  ["NOTE", "sk-abcdefghijklmnop1234", "HHHHHHH"],
  ["NOTE", "ghp_abcdefghijklmnopqrstuvwx", "HHHHHHH"],
  ["NOTE", "github_pat_abcdefghijklmnopqrstuvwx", "HHHHHHH"],
  ["NOTE", "AKIAIOSFODNN7EXAMPLE", "HHHHHHH"],
  ["NOTE", "xoxb-1234567890-abcdef", "HHHHHHH"],
  ["NOTE", "glpat-abcdefghijklmnop", "HHHHHHH"],
  ["NOTE", PEM, "HHHHHHH"],
  ["NOTE", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=abc123==", "HHHHHHH"],
  ["NOTE", JWT, "HHHHHHH"],
  ["NOTE", "postgres://app:dbpw1234@db/app", "HHHHHHH"],
  ["NOTE", "postgres://localhost/test", ".....HH"],
  ["NOTE", "https://hooks.slack.com/services/T0/B0/XYZSECRET", "HHHHHHH"],
  ["NOTE", "use ghp_abcdefghijklmnopqrstuvwx here", "HHHHHHH"],
];

/** `fooBar`, `FOO_BAR`, `foo-bar` → `foo-bar`: a name written as a command-line option. */
function optionName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
}

function quoted(value: string): string {
  return /[\s;]/.test(value) ? `'${value}'` : value;
}

/** The verdicts for one name and value, as a string of `H`/`.` in CONTEXTS order. */
function verdicts(name: string, value: string): string {
  const hiddenIn = (text: string) => !text.includes(value);
  // A manifest literal hides the value when keel redacts it or a part of it (a URL's password, a token after `Bearer`).
  const redacts = (found: string[]) => found.some((s) => value.includes(s));
  const v = [
    looksSecret(name, value),
    redacts(literalSecrets({ env: { [name]: value } })),
    redacts(literalSecrets({ headers: { [name]: value } })),
    redacts(literalSecrets({ args: [`--${optionName(name)}`, value] })),
    isSecretValue(["section", name], value),
    /^[A-Za-z_]\w*$/.test(name) ? hiddenIn(maskCommand(`${name}=${quoted(value)} ./run`)) : hiddenIn(maskCommand(`./run -H '${name}: ${value}'`)),
    hiddenIn(maskCommand(`./run --${optionName(name)} ${quoted(value)}`)),
  ];
  return v.map((h) => (h ? "H" : ".")).join("");
}

describe("one vocabulary: the same names and values judged in every context", () => {
  it("gives the recorded verdict in each context (differences are on purpose: see core/secret-words.ts)", () => {
    const got = TABLE.map(([name, value]) => [name, value, verdicts(name, value)]);
    expect(got).toEqual(TABLE);
  });
});

describe("command lines mask with the same words", () => {
  it("masks credential options after other options, headers named like credentials, short secret names and tokens anywhere", () => {
    expect(maskCommand("./run --verbose --token abc --db-pass=pw1 -H 'X-Api-Key: k123' CI_JOB_JWT=j1 DB_PASS=p2 echo ghp_abcdefghijklmnopqrstuvwx")).toBe(
      "./run --verbose --token *** --db-pass=*** -H 'X-Api-Key: ***' CI_JOB_JWT=*** DB_PASS=*** echo ***",
    );
    expect(maskCommand("curl -H 'Authorization: Bearer abc' -H 'Accept: json' --session-id s1 -o out.txt")).toBe(
      "curl -H 'Authorization: Bearer ***' -H 'Accept: json' --session-id *** -o out.txt",
    );
    expect(maskCommand("GOPRIVATE=github.com/acme TOKENIZERS_PARALLELISM=false PWD=/w make -j4 test")).toBe(
      "GOPRIVATE=github.com/acme TOKENIZERS_PARALLELISM=false PWD=/w make -j4 test",
    );
  });
});
