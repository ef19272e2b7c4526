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
  ["DB_PASS", V, "H......"],
  ["dbPass", V, "......."],
  ["SMTP_PWD", V, "H...H.."],
  ["MYSQL_PWD", V, "H...H.."],
  ["PWD", "/home/me/project", "....H.."],
  ["OLDPWD", "/home/me", "....H.."],
  ["GITHUB_PAT", V, "HH....."],
  ["CI_JOB_JWT", V, "H......"],
  ["SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T0/B0/XYZSECRET", "H....HH"],
  ["slackWebhookUrl", "https://hooks.slack.com/services/T0/B0/XYZSECRET", "H....HH"],
  ["npm_config__auth", V, "HHHH.HH"],
  ["BASIC_AUTH", V, "HHHH.HH"],
  ["DOCKER_AUTH_CONFIG", V, "HHHH.HH"],
  ["SESSION_COOKIE", V, "HHH.HHH"],
  ["AZURE_STORAGE_CONNECTION_STRING", V, "H......"],
  ["DEPLOY_CREDS", V, "H......"],
  ["SIGNING_PRIVATE", V, "H...H.."],
  ["KEYCLOAK_CLIENT_SECRET", V, "HHHHHHH"],
  ["SESSION_SECRET", V, "HHHHHHH"],
  ["SESSION_ID", V, ".HH...."],
  ["x-api-key", V, "HHHHH.H"],
  ["Authorization", "Bearer abcdefgh12345678", ".HHHHHH"],
  ["Private-Token", V, "HHHHH.H"],
  ["X-Hub-Signature", V, "..H...."],
  ["apiKey", V, "HHHHHHH"],
  ["clientSecret", V, "HHHHHHH"],
  ["apiKeyEnv", "OPENAI_API_KEY", "HHHH.HH"],
  ["apiKeyHelper", "/usr/local/bin/get-key", "HHHH.HH"],
  ["tokenFile", "/home/me/.token", "HHHH..H"],
  ["tokenUrl", "https://auth.example.com/token", "HHHH.HH"],
  ["SSL_KEY_FILE", "/etc/ssl/k.pem", ".HHH.HH"],
  ["SSH_AUTH_SOCK", "/run/user/1000/ssh.sock", ".HHH.HH"],
  ["TOKENIZERS_PARALLELISM", "false", ".HHHH.H"],
  ["GOPRIVATE", "github.com/acme/*", "....H.."],
  ["PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring", ".HHHHHH"],
  ["KEYCLOAK_URL", "https://sso.example.com", ".HHH..H"],
  ["XDG_SESSION_TYPE", "wayland", ".HH.H.."],
  ["DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus", ".HH.H.."],
  ["GIT_AUTHOR_NAME", "Jane Doe", ".HHH..."],
  ["OAUTH_CLIENT_ID", "keel-cli", ".HHH.HH"],
  ["DEBUG", "true", "......."],
  ["HOME", "/home/me", "......."],
  ["NOTE", "Bearer abcdefgh12345678", "....HHH"],
  ["NOTE", "sk-abcdefghijklmnop1234", "H...H.."],
  ["NOTE", "ghp_abcdefghijklmnopqrstuvwx", "H...H.."],
  ["NOTE", "github_pat_abcdefghijklmnopqrstuvwx", "H...H.."],
  ["NOTE", "AKIAIOSFODNN7EXAMPLE", "H...H.."],
  ["NOTE", "xoxb-1234567890-abcdef", "H...H.."],
  ["NOTE", "glpat-abcdefghijklmnop", "H...H.."],
  ["NOTE", PEM, "H...H.."],
  ["NOTE", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=abc123==", "H....HH"],
  ["NOTE", JWT, "......."],
  ["NOTE", "postgres://app:dbpw1234@db/app", "H...HHH"],
  ["NOTE", "postgres://localhost/test", ".....HH"],
  ["NOTE", "https://hooks.slack.com/services/T0/B0/XYZSECRET", ".....HH"],
  ["NOTE", "use ghp_abcdefghijklmnopqrstuvwx here", "....H.."],
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
  const v = [
    looksSecret(name, value),
    literalSecrets({ env: { [name]: value } }).includes(value),
    literalSecrets({ headers: { [name]: value } }).includes(value),
    literalSecrets({ args: [`--${optionName(name)}`, value] }).includes(value),
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
