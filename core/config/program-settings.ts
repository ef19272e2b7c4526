import type { KeelConfig } from "./config-schema.js";
import type { LoadedConfig } from "./load-config.js";
import type { HostOptions } from "../host-options.js";

/** The config with the calling program's `model` and `permissions` (command-line level: its allow rules count as the user's) applied over it. */
export function withProgramSettings(loaded: LoadedConfig, options: HostOptions): LoadedConfig {
  const { model, permissions } = options;
  if (model === undefined && permissions === undefined) return loaded;
  const config: KeelConfig = { ...loaded.config, ...(model === undefined ? {} : { model }) };
  const allowLevels = new Map(loaded.allowLevels);
  if (permissions) {
    const before = config.permissions ?? {};
    config.permissions = { ...before };
    for (const list of ["allow", "ask", "deny"] as const)
      if (permissions[list]?.length) config.permissions[list] = [...(before[list] ?? []), ...permissions[list]];
    for (const rule of permissions.allow ?? []) {
      const levels = allowLevels.get(rule) ?? [];
      if (!levels.includes("user")) allowLevels.set(rule, [...levels, "user"]);
    }
  }
  return { ...loaded, config, allowLevels };
}
