/** Outcome of one `keel doctor` check: `fail` makes the command exit 1; `warn` and `skip` do not. */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** One line of `keel doctor`: what was checked, what was found, and how to fix it when it is not ok. */
export interface DoctorCheck {
  /** What was checked: `node`, `config`, `trust`, `model`, `mcp:NAME`, `sandbox`, `git`, … */
  name: string;
  status: CheckStatus;
  message: string;
  /** The next step, for `warn` and `fail`. */
  fix?: string;
}

/** Builds a check (drops an empty `fix`). */
export function check(name: string, status: CheckStatus, message: string, fix?: string): DoctorCheck {
  return fix ? { name, status, message, fix } : { name, status, message };
}
