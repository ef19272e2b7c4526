// Masking credentials in a command line: hook events, approval texts and config listings show command lines this way.
/** A URL: scheme, optional user info, host, and the rest (path, query) up to a space or quote. */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/'"?#@]+@)?([^\s/'"?#]+)([^\s'"]*)/gi;

/** `--token X`, `--api-key=X`, `-u user:pass`, `--user user:pass`: an option naming a credential, and its value. */
const SECRET_OPTION = /(\s(?:--?[\w-]*(?:token|secret|passw|key|auth|credential|cookie)[\w-]*|-u|--user))(=|\s+)(["']?)[^\s"']+\3/gi;

/** `API_KEY=X`, `export SLACK_WEBHOOK="X"`: a variable named like a credential, and its value. */
const SECRET_ASSIGNMENT = /\b([A-Za-z_]\w*(?:TOKEN|SECRET|PASSW\w*|KEY|AUTH\w*|CREDENTIAL\w*|COOKIE|WEBHOOK\w*)\w*)=(["']?)[^\s"']+\2/gi;

/** `Bearer X`, `Basic X`, `token X` (an HTTP authorization value in a header option). */
const AUTH_SCHEME = /\b(Bearer|Basic|token)\s+[^\s"']+/gi;

/**
 * `command` with its credentials replaced by `***`: a URL keeps its scheme and host
 * (`https://hooks.slack.com/***`: webhook URLs carry their secret in the path), and the value of a
 * credential option or variable (`--token X`, `--api-key=X`, `-u user:pass`, `API_KEY=X`) or after
 * `Bearer`/`Basic` is `***`. Never throws.
 */
export function maskCommand(command: string): string {
  return ` ${command}`
    .replace(URL_IN_TEXT, (_m, scheme: string, host: string, rest: string) => `${scheme}${host}${rest && rest !== "/" ? "/***" : rest}`)
    .replace(SECRET_OPTION, "$1$2$3***$3")
    .replace(SECRET_ASSIGNMENT, "$1=$2***$2")
    .replace(AUTH_SCHEME, "$1 ***")
    .slice(1);
}
