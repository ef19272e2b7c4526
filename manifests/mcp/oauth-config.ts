import { z } from "zod";
import { expandVars, type ExpansionBudget } from "./expand-vars.js";
import { envValue } from "../../core/index.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FROM_ENV = /^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/;

/**
 * The `oauth` object of an HTTP/SSE server entry. Everything is optional: without it keel still
 * discovers the authorization server, registers dynamically and logs in with `keel mcp login`.
 * Secrets never appear literally: `clientSecret` must be a `${VAR}` reference, or name the
 * variable with `clientSecretEnv`; a private key comes from `privateKeyEnv`.
 */
export const McpOAuthSchema = z
  .object({
    clientId: z.string().min(1).optional(),
    clientSecret: z
      .string()
      .regex(FROM_ENV, { message: 'must come from the environment: write "${VARIABLE}" (or use "clientSecretEnv": "VARIABLE"), never the secret itself' })
      .optional(),
    clientSecretEnv: z.string().regex(ENV_NAME, { message: "must be an environment variable name" }).optional(),
    privateKeyEnv: z.string().regex(ENV_NAME, { message: "must be an environment variable name holding a PEM private key" }).optional(),
    algorithm: z.string().min(1).optional(),
    grantType: z.enum(["authorization_code", "client_credentials", "cross_app_access"]).optional(),
    /** Enterprise identity provider for `cross_app_access` (SEP-990): its token endpoint, keel's client id there, the user's ID token from the environment. */
    idp: z
      .object({
        tokenEndpoint: z.string().url(),
        clientId: z.string().min(1),
        idTokenEnv: z.string().regex(ENV_NAME, { message: "must be an environment variable name holding the ID token" }),
      })
      .strict()
      .optional(),
    scope: z.string().optional(),
    clientMetadataUrl: z.string().url().startsWith("https://", { message: "must be an https URL" }).optional(),
    issuer: z.string().url().optional(),
    callbackPort: z.number().int().min(1).max(65535).optional(),
    clientName: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.clientSecret && o.clientSecretEnv)
      ctx.addIssue({ code: "custom", path: ["clientSecretEnv"], message: "give either clientSecret or clientSecretEnv, not both" });
    if (o.grantType === "cross_app_access" && (!o.idp || !o.clientId))
      ctx.addIssue({ code: "custom", path: ["idp"], message: "cross_app_access needs clientId and idp: {tokenEndpoint, clientId, idTokenEnv}" });
    if (o.grantType === "client_credentials") {
      if (!o.clientId) ctx.addIssue({ code: "custom", path: ["clientId"], message: "client_credentials needs clientId" });
      if (!o.clientSecret && !o.clientSecretEnv && !o.privateKeyEnv)
        ctx.addIssue({ code: "custom", path: ["clientSecretEnv"], message: "client_credentials needs clientSecretEnv (or clientSecret) or privateKeyEnv" });
    }
  });

/** `oauth` as written in a manifest. */
export type McpOAuthEntry = z.infer<typeof McpOAuthSchema>;

/** `oauth` of a server, with secrets read from the environment (the values are also listed in the server's `secrets`). */
export interface McpOAuthConfig {
  grantType: "authorization_code" | "client_credentials" | "cross_app_access";
  /** `cross_app_access`: the identity provider and the user's ID token (a secret). */
  idp?: { tokenEndpoint: string; clientId: string; idToken?: string };
  clientId?: string;
  clientSecret?: string;
  /** PEM private key for `private_key_jwt` (client_credentials). */
  privateKey?: string;
  /** JWT signing algorithm for `private_key_jwt` (default RS256). */
  algorithm?: string;
  scope?: string;
  clientMetadataUrl?: string;
  /** Authorization server the pre-registered credentials belong to: keel presents them to no other. */
  issuer?: string;
  /** Fixed loopback port for the login callback (a pre-registered redirect URI); default an ephemeral port. */
  callbackPort?: number;
  clientName?: string;
}

/** Resolves `oauth` against `env`: expands `${VAR}` (within `budget`, else throws as expandVars does), reads `clientSecretEnv`/`privateKeyEnv`; unset names go to `unset`, values to `secrets`. */
export function resolveOAuth(o: McpOAuthEntry, env: NodeJS.ProcessEnv, unset: string[], secrets: string[], budget?: ExpansionBudget): McpOAuthConfig {
  const x = (v: string | undefined) => {
    if (v === undefined) return undefined;
    const e = expandVars(v, env, budget);
    for (const name of e.unset) unset.push(name); // no spread: a string may hold 100,000s of references
    for (const secret of e.secrets) secrets.push(secret);
    return e.value;
  };
  const named = (name: string | undefined) => {
    if (name === undefined) return undefined;
    const v = envValue(env, name);
    if (v === undefined || v === "") {
      unset.push(name);
      return undefined;
    }
    secrets.push(v);
    return v;
  };
  return {
    grantType: o.grantType ?? "authorization_code",
    clientId: x(o.clientId),
    clientSecret: o.clientSecretEnv ? named(o.clientSecretEnv) : x(o.clientSecret),
    privateKey: named(o.privateKeyEnv),
    algorithm: o.algorithm,
    scope: o.scope,
    clientMetadataUrl: o.clientMetadataUrl,
    issuer: o.issuer,
    callbackPort: o.callbackPort,
    clientName: o.clientName,
    ...(o.idp ? { idp: { tokenEndpoint: o.idp.tokenEndpoint, clientId: o.idp.clientId, idToken: named(o.idp.idTokenEnv) } } : {}),
  };
}
