// Masking credentials in a command line: hook events, approval texts and config listings show command lines this way.
import { looksSecretName, maskSecretShapes } from "./secret-words.js";

/**
 * A URL: scheme, optional user info, host, and the rest (path, query) up to a space or quote. The scheme starts only
 * where a run of scheme characters starts (not at each word inside `a.a.a.…`, which made a long line cost its length squared).
 */
const URL_IN_TEXT = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/'"?#@]+@)?([^\s/'"?#]+)([^\s'"]*)/gi;

/** `--token X`, `--api-key=X`: an option and its value, not another option (masked when the option names a credential). */
const OPTION = /(\s(--?[A-Za-z][\w-]*))(=|\s+)(["']?)([^\s"'-][^\s"']*)\4/g;

/** curl's `-u user:pass` / `--user user:pass`: the value is a password whatever it is called. */
const USER_OPTION = /^(-u|--user)$/;

/** `API_KEY=X`, `export SLACK_WEBHOOK="X"`: a variable and its value (masked when the variable names a credential). */
const ASSIGNMENT = /\b([A-Za-z_]\w*)=(["']?)([^\s"']+)\2/g;

/** `-H 'X-Api-Key: X'`: a header and its value, after an optional authorization scheme (masked when the header names a credential). */
const HEADER = /(^|["'\s])([A-Za-z][\w-]*):([ \t]*)((?:bearer|basic|token|digest)\s+)?([^\s"']+)/gi;

/** `Bearer X`, `Basic X`, `token X` (an HTTP authorization value in a header option). */
const AUTH_SCHEME = /\b(Bearer|Basic|token)\s+[^\s"']+/gi;

/**
 * `command` with its credentials replaced by `***`: a URL keeps its scheme and host
 * (`https://hooks.slack.com/***`: webhook URLs carry their secret in the path); the value of an option, variable
 * or header named like a credential in keel's one vocabulary (core/secret-words.ts, display cost: `--token X`,
 * `--db-pass=X`, `-u user:pass`, `API_KEY=X`, `CI_JOB_JWT=X`, `X-Api-Key: X`), a value after `Bearer`/`Basic`,
 * and a well-known token anywhere (`ghp_…`, `sk-…`) are `***`. Never throws.
 */
export function maskCommand(command: string): string {
  return maskSecretShapes(` ${command}`)
    .replace(URL_IN_TEXT, (_m, scheme: string, host: string, rest: string) => `${scheme}${host}${rest && rest !== "/" ? "/***" : rest}`)
    .replace(OPTION, (m, lead: string, name: string, sep: string, q: string) =>
      USER_OPTION.test(name) || looksSecretName(name, "display") ? `${lead}${sep}${q}***${q}` : m,
    )
    .replace(ASSIGNMENT, (m, name: string, q: string) => (looksSecretName(name, "display") ? `${name}=${q}***${q}` : m))
    .replace(HEADER, (m, lead: string, name: string, space: string, scheme: string | undefined) =>
      looksSecretName(name, "display") ? `${lead}${name}:${space}${scheme ?? ""}***` : m,
    )
    .replace(AUTH_SCHEME, "$1 ***")
    .slice(1);
}
