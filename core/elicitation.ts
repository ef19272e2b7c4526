/** An elicitation request from an MCP server, as keel passes it to an elicitor. */
export interface ElicitationRequest {
  server: string;
  message: string;
  mode?: string;
  requestedSchema?: {
    properties?: Record<string, { type?: string; description?: string; title?: string; default?: unknown; enum?: unknown[] }>;
    required?: string[];
  };
}

/** The answer to an elicitation (MCP `ElicitResult`). */
export interface ElicitationAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * Answers a server's `elicitation/create`. Must not throw for a user's refusal (return decline).
 * `waitsForUser`: it asks a person (time spent in it does not count against tool timeouts, and an
 * answer that does not match the form is asked again).
 */
export type Elicitor = ((request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>) & { waitsForUser?: boolean };
