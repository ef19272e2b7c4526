import { describe, expect, it } from "vitest";
import { looksSecret, scrubSecrets } from "../../core/secret-env.js";

describe("which variables look secret (names, and URLs with a password)", () => {
  it("names with KEY, SECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL, PRIVATE (any case) and well-known ones look secret", () => {
    for (const name of [
      "GITHUB_TOKEN",
      "GH_ENTERPRISE_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "AWS_ACCESS_KEY_ID",
      "ANTHROPIC_API_KEY",
      "NPM_TOKEN",
      "npm_config__auth",
      "PGPASSWORD",
      "MYSQL_PWD",
      "REDIS_PASSWD",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "SIGNING_PRIVATE",
      "GITHUB_PAT",
      "my_api_key",
      "YARN_NPM_AUTH_IDENT",
      "KUBE_CONFIG_DATA",
      "GITLAB_OAUTH",
    ])
      expect(looksSecret(name, "x"), name).toBe(true);
  });

  it("ordinary names, sockets and files named by a *_FILE/_PATH/_DIR/_SOCK variable with an absolute path stay", () => {
    for (const [name, value] of [
      ["PATH", "/usr/bin"],
      ["HOME", "/home/u"],
      ["PWD", "/w"],
      ["SSH_AUTH_SOCK", "/run/ssh.sock"],
      ["GPG_TTY", "/dev/pts/1"],
      ["GIT_AUTHOR_NAME", "A"],
      ["GIT_ASKPASS", "/usr/bin/askpass"],
      ["TOKENIZERS_PARALLELISM", "false"],
      ["SSL_KEY_FILE", "/etc/ssl/k.pem"],
      ["DATABASE_URL", "postgres://localhost/test"],
      ["SENTRY_DSN", "https://public@o1.ingest.sentry.io/2"],
    ])
      expect(looksSecret(name!, value), name).toBe(false);
    // A relative "path" may be anything: a name that looks secret then does.
    expect(looksSecret("SSL_KEY_FILE", "abc123")).toBe(true);
  });

  it("a URL with a password in its value looks secret whatever the variable is called", () => {
    expect(looksSecret("DATABASE_URL", "postgres://app:hunter2@db:5432/app")).toBe(true);
    expect(looksSecret("HTTPS_PROXY", "http://me:pw@proxy:3128")).toBe(true);
    expect(looksSecret("HTTPS_PROXY", "http://proxy:3128")).toBe(false);
    // Without a scheme, as keel and curl read a proxy variable: http://me:pw@proxy:3128.
    expect(looksSecret("HTTPS_PROXY", "me:pw@proxy:3128")).toBe(true);
    expect(looksSecret("http_proxy", " me:pw@proxy:3128")).toBe(true);
    expect(looksSecret("HTTPS_PROXY", "proxy:3128")).toBe(false);
    expect(looksSecret("HTTPS_PROXY", "me@proxy:3128")).toBe(false);
    expect(looksSecret("SERVICE_ADDR", "me:pw@proxy:3128")).toBe(false);
  });

  it("short and well-known secret names, and values shaped like a credential, look secret; PWD, OLDPWD, GIT_AUTHOR_NAME, SSH_AUTH_SOCK do not", () => {
    for (const [name, value] of [
      ["DB_PASS", "p"],
      ["SMTP_PWD", "p"],
      ["GOOGLE_CREDS", "{}"],
      ["CI_JOB_JWT", "eyJ"],
      ["SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T0/B0/x"],
      ["SESSION_COOKIE", "c"],
      ["DOCKER_AUTH_CONFIG", "{}"],
      ["AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=k;EndpointSuffix=core.windows.net"],
      ["SQL", "Server=db;Database=x;User Id=u;Password=p;"],
      ["GITHUB_APP_PEM", "-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END RSA PRIVATE KEY-----"],
      ["SOME_VAR", "ghp_abcdefghijklmnopqrstuvwxyz0123"],
      ["OTHER", "sk-proj-abcdefghijklmnop1234"],
    ])
      expect(looksSecret(name!, value), name).toBe(true);
    for (const [name, value] of [
      ["PWD", "/w"],
      ["OLDPWD", "/w"],
      ["GIT_AUTHOR_NAME", "A"],
      ["SSH_AUTH_SOCK", "/run/ssh.sock"],
      ["PASSENGER_ENV", "x"],
      ["AUTH_URL", "http://localhost:3000"],
      ["AUTH_TRUST_HOST", "true"],
      ["TASK_RUNNER", "desk-abcdefghijklmnopqrst"],
    ])
      expect(looksSecret(name!, value), name).toBe(false);
  });

  it("scrubSecrets keeps what `pass` names (exact or with *), never the `never` names, and lists what it took out", () => {
    const env = { PATH: "/bin", GH_TOKEN: "g", NPM_TOKEN: "n", NPM_CONFIG_TOKEN: "c", AWS_SECRET_ACCESS_KEY: "a", OPENAI_API_KEY: "o" };
    const { env: out, removed } = scrubSecrets(env, ["GH_TOKEN", "NPM_*", "OPENAI_*"], ["OPENAI_API_KEY"]);
    expect(out).toEqual({ PATH: "/bin", GH_TOKEN: "g", NPM_TOKEN: "n", NPM_CONFIG_TOKEN: "c" });
    expect(removed).toEqual(["AWS_SECRET_ACCESS_KEY"]);
    expect(scrubSecrets(env, ["gh_token"], []).env.GH_TOKEN).toBeUndefined(); // names are case-sensitive
  });
});
