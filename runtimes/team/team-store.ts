import { join } from "node:path";
import {
  errorMessage,
  MAX_MANIFEST_BYTES,
  readJsonState,
  readRegularFile,
  realOrSelf,
  StateError,
  ToolError,
  withFileLock,
  writeJsonState,
} from "../../core/index.js";
import { linkedIntoExcluded } from "../../manifests/discovery-scope.js";
import { asToolError } from "../task/task-store.js";
import { MessageLog, type ReadOptions, type TeamMessage } from "./message-log.js";

/** A team created with team_create (stored in `.keel/state/teams/teams.json`). */
export interface TeamRecord {
  name: string;
  description: string;
  members: string[];
  metadata: Record<string, unknown>;
  created_at: string;
}

/** A deleted team whose messages were archived. */
export interface ArchivedTeam {
  name: string;
  deleted_at: string;
  messages: number;
  /** Archive folder, relative to `.keel/state/teams/`. */
  archive: string;
}

/** A team as tools see it: created and declared teams merged; `sources` says where it came from. */
export interface Team extends TeamRecord {
  sources: string[];
}

interface TeamState {
  version: 1;
  teams: TeamRecord[];
  archived: ArchivedTeam[];
}

/** Team names: letters, digits, `_`, `-`, `.`; unique ignoring case. */
export const TEAM_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$";

/**
 * Teams and their message logs under `.keel/state/teams/`. Declared teams (`.keel/teams.json`,
 * `.claw-teams.json`) are read and merged with created ones on every call.
 */
export class TeamStore {
  private readonly file: string;

  constructor(
    /** `.keel/state/teams` */
    readonly dir: string,
    /** Files declaring teams, in merge order. */
    readonly declaredFiles: string[],
    /** The workspace root: a declared file must really lie inside it (not in node_modules/, .git/ or .keel/worktrees/). */
    readonly root: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.file = join(dir, "teams.json");
  }

  /** Every team (created + declared, merged by name ignoring case), sorted by name. */
  async list(): Promise<{ teams: Team[]; archived: ArchivedTeam[] }> {
    const state = await this.read();
    const merged = new Map<string, Team>();
    for (const { file, teams } of await this.declared()) {
      for (const t of teams) {
        const key = t.name.toLowerCase();
        const prev = merged.get(key);
        merged.set(key, prev ? mergeTeam(prev, t, `declared:${file}`) : { ...t, sources: [`declared:${file}`] });
      }
    }
    for (const t of state.teams) {
      const key = t.name.toLowerCase();
      const prev = merged.get(key);
      merged.set(
        key,
        prev ? { ...mergeTeam(prev, t, "created"), name: t.name, description: t.description || prev.description } : { ...t, sources: ["created"] },
      );
    }
    return { teams: [...merged.values()].sort((a, b) => a.name.localeCompare(b.name)), archived: state.archived };
  }

  /** One team by name (ignoring case); ToolError listing the known teams otherwise. */
  async get(name: string): Promise<Team> {
    const { teams } = await this.list();
    const team = teams.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (!team)
      throw new ToolError(
        `No team named "${name}".${teams.length ? ` Known teams: ${teams.map((t) => t.name).join(", ")}.` : ""} Create it with team_create (\`keel team create NAME MEMBER…\`).`,
        "precondition_failed",
      );
    return team;
  }

  /** Creates a team; a name taken by a created or declared team (ignoring case) is an error. */
  async create(input: { team_name: string; description?: string; members?: string[]; metadata?: Record<string, unknown> }): Promise<Team> {
    return this.locked(async (state) => {
      const existing = (await this.list()).teams.find((t) => t.name.toLowerCase() === input.team_name.toLowerCase());
      if (existing)
        throw new ToolError(
          `A team named "${existing.name}" already exists (${existing.sources.join(", ")}); team names are unique ignoring case. Pick another name or use the existing team.`,
          "precondition_failed",
        );
      const members = [...new Set(input.members ?? [])];
      if (members.includes("*")) throw new ToolError(`"*" means "every member" and cannot be a member name; remove it from members.`, "schema_invalid");
      const record: TeamRecord = {
        name: input.team_name,
        description: input.description ?? "",
        members,
        metadata: input.metadata ?? {},
        created_at: this.now(),
      };
      state.teams.push(record);
      return { write: true, result: { ...record, sources: ["created"] } };
    });
  }

  /** Deletes a created team; its messages move to `archive/<name>-<time>/` and stay readable there. */
  async delete(name: string): Promise<{ archived: ArchivedTeam; stillDeclared: boolean }> {
    return this.locked(async (state) => {
      const idx = state.teams.findIndex((t) => t.name.toLowerCase() === name.toLowerCase());
      const team = await this.get(name);
      if (idx < 0)
        throw new ToolError(
          `Team "${team.name}" is declared in ${team.sources.map((s) => s.replace(/^declared:/, "")).join(", ")}, not created; remove it from that file instead.`,
          "precondition_failed",
        );
      const record = state.teams[idx]!;
      const stamp = this.now().replace(/[:.]/g, "-");
      const archive = join("archive", `${record.name.toLowerCase()}-${stamp}`);
      const log = this.log(record.name);
      // Holds the log lock while moving the log and writing teams.json, so no send slips in between.
      const archived = await log.locked(async () => {
        const messages = await log.archiveLocked(join(this.dir, archive));
        const entry: ArchivedTeam = { name: record.name, deleted_at: this.now(), messages, archive };
        state.teams.splice(idx, 1);
        state.archived.push(entry);
        await writeJsonState(this.file, state);
        return entry;
      });
      return { write: false, result: { archived, stillDeclared: team.sources.some((s) => s.startsWith("declared:")) } };
    });
  }

  /** Appends a message; the recipient must be a member or `*`. */
  async send(input: { team_name: string; message: string; sender?: string; recipient?: string; metadata?: Record<string, unknown> }): Promise<TeamMessage> {
    return asToolError(async () => {
      const team = await this.get(input.team_name);
      const recipient = input.recipient ?? "*";
      checkRecipient(team, recipient);
      const log = this.log(team.name);
      return log.locked(async () => {
        await this.get(team.name); // re-checked under the log lock: the team may have been deleted meanwhile
        return log.appendLocked({ ts: this.now(), sender: input.sender ?? "user", recipient, message: input.message, metadata: input.metadata ?? {} });
      });
    });
  }

  /** Messages of a team (for one recipient: theirs plus broadcasts), see `MessageLog.read`. */
  async messages(name: string, opts: ReadOptions): Promise<{ team: Team; messages: TeamMessage[]; total: number; last_seq: number }> {
    return asToolError(async () => {
      const team = await this.get(name);
      if (opts.recipient !== undefined && opts.recipient !== "*") checkRecipient(team, opts.recipient);
      return { team, ...(await this.log(team.name).read(opts)) };
    });
  }

  private log(name: string): MessageLog {
    return new MessageLog(join(this.dir, "live", name.toLowerCase()));
  }

  private now(): string {
    return this.clock().toISOString();
  }

  private async read(): Promise<TeamState> {
    return asToolError(async () => {
      const state = await readJsonState<TeamState>(this.file, { version: 1, teams: [], archived: [] });
      if (!state || !Array.isArray(state.teams))
        throw new StateError(`State file ${this.file} does not hold teams ({"teams": [...]}). keel left it untouched: fix or move it, then retry.`, this.file);
      state.archived ??= [];
      const problem = teamStateProblem(state);
      if (problem)
        throw new StateError(
          `State file ${this.file}: ${problem}. keel left it untouched: fix or remove that entry (or move the file), then retry.`,
          this.file,
        );
      return state;
    });
  }

  private locked<R>(fn: (state: TeamState) => Promise<{ write: boolean; result: R }>): Promise<R> {
    return asToolError(() =>
      withFileLock(this.file, async (held) => {
        const state = await this.read();
        const { write, result } = await fn(state);
        if (write) {
          held(); // taken over by another process meanwhile: not written over what it wrote
          await writeJsonState(this.file, state);
        }
        return result;
      }),
    );
  }

  private async declared(): Promise<{ file: string; teams: TeamRecord[] }[]> {
    const out: { file: string; teams: TeamRecord[] }[] = [];
    for (const file of this.declaredFiles) {
      // A committed link to a file elsewhere (another project's, a secret) is not read: its text would reach the model and its parse errors quote it.
      if (linkedIntoExcluded(this.root, file))
        throw declaredError(
          file,
          `leads to ${realOrSelf(file)}, outside the workspace or into node_modules/, .git/ or .keel/worktrees/, so it was not read (keel reads a workspace's team declarations only from its own files)`,
          "replace the link with a copy of the file, or remove it",
        );
      let text: string;
      try {
        // A manifest (`.claw-teams.json`) or keel's own file: a regular file of bounded size, never a FIFO or device.
        text = readRegularFile(file, MAX_MANIFEST_BYTES);
      } catch (error) {
        // No file declares no teams; one that cannot be read is an error, as one that cannot be parsed.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw declaredError(file, `cannot be read (${errorMessage(error)})`);
      }
      out.push({ file, teams: parseDeclared(text, file) });
    }
    return out;
  }
}

/** Parses a declared-teams file: `{"teams": [...]}`, `{"teams": {name: {...}}}` or a bare list. */
export function parseDeclared(text: string, file: string): TeamRecord[] {
  const fail = (why: string) => declaredError(file, why);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw fail(`is not valid JSON (${(error as Error).message})`);
  }
  let list: unknown = Array.isArray(raw) ? raw : (raw as { teams?: unknown } | null)?.teams;
  if (list && typeof list === "object" && !Array.isArray(list)) list = Object.entries(list).map(([name, v]) => ({ name, ...(v as object) }));
  if (!Array.isArray(list)) throw fail(`has no "teams" list`);
  return list.map((t, i) => {
    const team = t as Partial<TeamRecord> & { team_name?: string };
    const name = team.name ?? team.team_name;
    if (typeof name !== "string" || !new RegExp(TEAM_NAME_PATTERN).test(name)) throw fail(`has an invalid or missing name in team ${i + 1}`);
    if (team.members !== undefined && (!Array.isArray(team.members) || team.members.some((m) => typeof m !== "string")))
      throw fail(`has a "members" field that is not a list of names in team "${name}"`);
    return { name, description: team.description ?? "", members: [...new Set(team.members ?? [])], metadata: team.metadata ?? {}, created_at: "" };
  });
}

/** The error for a declared-teams file that cannot be used (`why` completes "Declared teams file F …"; `fix` says what to do). */
function declaredError(file: string, why: string, fix = 'fix it (e.g. {"teams": [{"name": "reviewers", "members": ["alice"]}]}) or move it'): ToolError {
  return new ToolError(`Declared teams file ${file} ${why}. keel does not change it: ${fix}.`, "execution_failed", null, { file });
}

function mergeTeam(prev: Team, next: TeamRecord, source: string): Team {
  return {
    ...prev,
    description: prev.description || next.description,
    members: [...new Set([...prev.members, ...next.members])],
    metadata: { ...prev.metadata, ...next.metadata },
    created_at: prev.created_at || next.created_at,
    sources: [...prev.sources, source],
  };
}

function checkRecipient(team: Team, recipient: string): void {
  if (recipient === "*" || team.members.includes(recipient)) return;
  throw new ToolError(
    `"${recipient}" is not a member of team "${team.name}" (members: ${team.members.join(", ") || "none"}). Send to a member, or to "*" for everyone.`,
    "precondition_failed",
  );
}

/** Why stored teams are not what keel writes (a repository can commit the file), naming the entry, or undefined. Never throws. */
function teamStateProblem(state: TeamState): string | undefined {
  if (!Array.isArray(state.archived)) return "archived is not a list";
  const name = new RegExp(TEAM_NAME_PATTERN);
  for (const [i, t] of state.teams.entries()) {
    if (!t || typeof t !== "object" || Array.isArray(t)) return `teams[${i}] is not an object`;
    if (typeof t.name !== "string" || !name.test(t.name)) return `teams[${i}] has an invalid name ${JSON.stringify(t.name)}`;
    if (!Array.isArray(t.members) || !t.members.every((m) => typeof m === "string")) return `teams[${i}] has members that are not a list of names`;
  }
  for (const [i, a] of state.archived.entries())
    if (!a || typeof a !== "object" || typeof a.name !== "string" || typeof a.archive !== "string") return `archived[${i}] is not an archived team`;
  return undefined;
}
