import type { ConfigSourceName } from "../../core/index.js";

/** Source names in merge order (later wins). */
export const CONFIG_SOURCES: ConfigSourceName[] = ["user", "legacy", "claude", "project", "local"];

/** Sources `config_set` writes to. */
export const WRITABLE_SOURCES = ["local", "project", "user"] as const;

/** A writable source. */
export type WritableSource = (typeof WRITABLE_SOURCES)[number];
