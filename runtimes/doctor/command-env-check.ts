import { type Host, scrubbedVarNames } from "../../core/index.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** Most variable names listed on the line; the rest are counted. */
const SHOWN = 12;

/**
 * Which of keel's environment variables commands run for the model do not get because they look
 * secret (names only, never values), and how to let one through. Informational: never fails.
 */
export function commandEnvCheck(host: Host): DoctorCheck {
  const names = scrubbedVarNames(host);
  if (!names.length) return check("env", "ok", "commands for the model get keel's environment (no secret-looking variables besides the model key)");
  const shown = names.length > SHOWN ? `${names.slice(0, SHOWN).join(", ")} and ${names.length - SHOWN} more` : names.join(", ");
  return check(
    "env",
    "ok",
    `commands for the model run without ${names.length} secret-looking variable${names.length === 1 ? "" : "s"}: ${shown} (pass with commandEnv.pass in $KEEL_HOME/config.json)`,
  );
}
