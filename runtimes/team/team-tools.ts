import { exactText } from "../../core/cli/index.js";
import { defineTool, objectSchema, type ToolDefinition } from "../../core/index.js";
import type { TeamMessage } from "./message-log.js";
import { TEAM_NAME_PATTERN, type Team, type TeamStore } from "./team-store.js";

const SOURCE = { kind: "runtime", id: "team" } as const;
const teamName = { type: "string", pattern: TEAM_NAME_PATTERN, description: "Team name (unique ignoring case)" } as const;
const member = { type: "string", minLength: 1, maxLength: 100 } as const;

const obj = objectSchema;

/** A team as one line of text; names, members and description shown exactly (`exactText`: a newline cannot fake another team). */
export function formatTeam(team: Team): string {
  const declared = team.sources.filter((s) => s.startsWith("declared:")).length ? " [declared]" : "";
  const description = team.description ? ` — ${exactText(String(team.description))}` : "";
  return `${team.name}${declared}: ${team.members.map(exactText).join(", ") || "(no members)"}${description}`;
}

/**
 * A message as text: `msg_3 12:00:01 alice → bob: text`. Its header fields are shown exactly (`exactText`); the text
 * keeps its lines, blanks and tabs (code a teammate sends stays code), each line after the first indented by 4 spaces,
 * so no line of it can start like another message.
 */
export function formatMessage(m: TeamMessage): string {
  const head = [m.id, m.ts, m.sender, "→", `${m.recipient}:`].map((part) => exactText(String(part))).join(" ");
  return `${head} ${String(m.message)
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .join("\n    ")}`;
}

/** Parses a `since` cursor: a seq number or a message id `msg_<n>`. */
function cursor(since: number | string | undefined): number | undefined {
  if (since === undefined) return undefined;
  if (typeof since === "number") return since;
  const m = /^(?:msg_)?(\d+)$/.exec(since);
  if (!m) throw new Error(`since must be a message id like "msg_12" or its number, got ${JSON.stringify(since)}`);
  return Number(m[1]);
}

/** The team runtime's tools. `prepare` creates `.keel/` before the first write. */
export function teamTools(store: TeamStore, prepare: () => void): ToolDefinition[] {
  const read = { source: SOURCE, risk: ["read" as const], readOnly: true };
  const write = { source: SOURCE, risk: ["write" as const], readOnly: false, permissionKey: "team_name" };
  return [
    defineTool(obj({}), {
      ...read,
      name: "team_list",
      description: "List teams (created with team_create, and declared in .keel/teams.json or .claw-teams.json).",
      async execute() {
        const { teams, archived } = await store.list();
        const text = teams.length ? teams.map(formatTeam).join("\n") : "No teams.";
        return { content: text + (archived.length ? `\n(${archived.length} deleted team(s) archived)` : ""), data: { teams, archived } };
      },
    }),
    defineTool(obj({ team_name: teamName }, ["team_name"]), {
      ...read,
      name: "team_get",
      description: "Show one team and its members.",
      async execute(input) {
        const team = await store.get(input.team_name);
        return { content: formatTeam(team), data: { team } };
      },
    }),
    defineTool(
      obj({ team_name: teamName, description: { type: "string" }, members: { type: "array", items: member }, metadata: { type: "object" } }, ["team_name"]),
      {
        ...write,
        name: "team_create",
        description: "Create a team of named members.",
        async execute(input) {
          prepare();
          const team = await store.create(input);
          return { content: `Created team ${formatTeam(team)}`, data: { team } };
        },
      },
    ),
    defineTool(obj({ team_name: teamName }, ["team_name"]), {
      ...write,
      name: "team_delete",
      description: "Delete a created team. Its messages are archived (kept under .keel/state/teams/archive/), not destroyed.",
      async execute(input) {
        prepare();
        const { archived, stillDeclared } = await store.delete(input.team_name);
        const note = stillDeclared ? " It is still declared in a teams file, so it stays listed." : "";
        return { content: `Deleted team ${archived.name}; ${archived.messages} message(s) archived in ${archived.archive}.${note}`, data: { archived } };
      },
    }),
    defineTool(
      obj(
        {
          team_name: teamName,
          message: { type: "string", minLength: 1 },
          sender: member,
          recipient: { ...member, description: 'A member, or "*" (default)' },
          metadata: { type: "object" },
        },
        ["team_name", "message"],
      ),
      {
        ...write,
        name: "send_message",
        description: 'Send a message to a team member (or "*" for everyone). Messages persist in order with ids and timestamps.',
        async execute(input) {
          prepare();
          const msg = await store.send(input);
          return { content: `Sent ${formatMessage(msg)}`, data: { message: msg } };
        },
      },
    ),
    defineTool(
      obj(
        {
          team_name: teamName,
          recipient: member,
          limit: { type: "integer", minimum: 1 },
          since: { type: ["integer", "string"], description: "Message id (msg_12) or number" },
        },
        ["team_name"],
      ),
      {
        ...read,
        name: "team_messages",
        description:
          "Read a team's messages, oldest first. recipient: that member's messages plus broadcasts. since: only messages after this id (pass back next_since to poll). limit: the first N after since, else the last N.",
        async execute(input) {
          let since: number | undefined;
          try {
            since = cursor(input.since);
          } catch (error) {
            return { ok: false, code: "schema_invalid", content: (error as Error).message, data: null };
          }
          const { team, messages, total } = await store.messages(input.team_name, { recipient: input.recipient, limit: input.limit, since });
          const next = messages.length ? messages[messages.length - 1]!.seq : (since ?? 0);
          const head = `${messages.length} of ${total} message(s) in ${team.name}${input.recipient ? ` for ${input.recipient}` : ""}${since !== undefined ? ` after msg_${since}` : ""}:`;
          return {
            content: messages.length
              ? [head, ...messages.map(formatMessage)].join("\n")
              : `No messages in ${team.name}${input.recipient ? ` for ${input.recipient}` : ""}${since !== undefined ? ` after msg_${since}` : ""}.`,
            data: { team: team.name, messages, total, next_since: next },
          };
        },
      },
    ),
  ];
}
