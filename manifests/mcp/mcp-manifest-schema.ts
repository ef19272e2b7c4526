import { z } from "zod";
import { McpOAuthSchema } from "./oauth-config.js";

/** A local resource declared in an MCP manifest: inline `text`, or a `path` inside the workspace. */
export const LocalResourceSchema = z
  .object({
    name: z.string().min(1),
    uri: z.string().min(1).optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    path: z.string().min(1).optional(),
  })
  .passthrough()
  .refine((r) => (r.text === undefined) !== (r.path === undefined), { message: "a resource needs exactly one of `text` or `path`" });

const Transport = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(
    z.enum(["stdio", "http", "streamable-http", "streamablehttp", "streamable_http", "sse"], {
      message: 'must be "stdio", "http" (streamable HTTP) or "sse"',
    }),
  );

const StringMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));
const Globs = z.union([z.string().transform((s) => [s]), z.array(z.string())]);
const Millis = z.number().int().positive();

/** One server entry as written in a manifest (both forms share it; `name` is required in the `servers` list form). */
export const McpServerEntrySchema = z
  .object({
    name: z.string().min(1).optional(),
    type: Transport.optional(),
    transport: Transport.optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.union([z.string(), z.number()]).transform(String)).optional(),
    env: StringMap.optional(),
    cwd: z.string().optional(),
    url: z.string().min(1).optional(),
    headers: StringMap.optional(),
    enabled: z.boolean().optional(),
    disabled: z.boolean().optional(),
    enabledTools: Globs.optional(),
    disabledTools: Globs.optional(),
    enabled_tools: Globs.optional(),
    disabled_tools: Globs.optional(),
    startupTimeoutMs: Millis.optional(),
    toolTimeoutMs: Millis.optional(),
    startup_timeout_ms: Millis.optional(),
    tool_timeout_ms: Millis.optional(),
    lazy: z.boolean().optional(),
    sandbox: z.boolean().optional(),
    resources: z.array(z.unknown()).optional(),
    oauth: McpOAuthSchema.optional(),
  })
  .passthrough()
  .superRefine((s, ctx) => {
    const t = normalizeTransport(s.type ?? s.transport, s.url);
    if (t === "stdio" && !s.command)
      ctx.addIssue({ code: "custom", path: ["command"], message: 'a stdio server needs `command` (or set `type` to "http"/"sse" with a `url`)' });
    if (t !== "stdio" && !s.url) ctx.addIssue({ code: "custom", path: ["url"], message: `a ${t} server needs \`url\`` });
    if (t === "stdio" && s.oauth) ctx.addIssue({ code: "custom", path: ["oauth"], message: "`oauth` applies to http and sse servers only" });
  });

/** A parsed server entry. */
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

/** A parsed local resource. */
export type LocalResourceEntry = z.infer<typeof LocalResourceSchema>;

/** Maps the manifest's transport spellings to `stdio`, `http` or `sse`; a `url` without a type means `http`. */
export function normalizeTransport(type: string | undefined, url: string | undefined): "stdio" | "http" | "sse" {
  if (type === "sse") return "sse";
  if (type && type !== "stdio") return "http";
  if (!type && url) return "http";
  return "stdio";
}
