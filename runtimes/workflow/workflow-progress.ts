import { terminalText } from "../../core/cli/index.js";
import type { StepRecord } from "./run-record.js";

/** A step is about to execute. */
export interface StepStartedEvent {
  /** 0 for the top-level workflow, +1 per nested workflow. */
  depth: number;
  index: number;
  total: number;
  label: string;
  kind: string;
}

/** A step ended (succeeded, failed, skipped or cancelled). */
export interface StepFinishedEvent {
  depth: number;
  total: number;
  step: StepRecord;
}

/** Receives live progress of a run (the CLI prints it). Must not throw. */
export interface WorkflowProgress {
  stepStarted(event: StepStartedEvent): void;
  stepFinished(event: StepFinishedEvent): void;
}

/** Live output that can step aside for an approval prompt. */
export interface LiveProgress extends WorkflowProgress {
  /** Stops the spinner and clears its line (before a prompt). */
  pause(): void;
  /** Restarts the spinner of the running step (after a prompt). */
  resume(): void;
  /** Stops everything for good. */
  close(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Progress for a terminal (a spinner line per running step, replaced by ✓/✗ and the duration) or
 * for pipes and logs (one plain line per finished step).
 */
export function createProgress(out: NodeJS.WritableStream, tty: boolean): LiveProgress {
  let timer: NodeJS.Timeout | undefined;
  let current: StepStartedEvent | undefined;
  let frame = 0;
  const clear = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (tty && current) out.write("\r\x1b[K");
  };
  const draw = () => {
    if (!current) return;
    out.write(`\r\x1b[K${indent(current.depth)}${FRAMES[frame++ % FRAMES.length]} ${counter(current.index, current.total)} ${terminalText(current.label)}`);
  };
  return {
    stepStarted(event) {
      clear();
      if (event.kind === "workflow") {
        out.write(`${indent(event.depth)}▸ ${counter(event.index, event.total)} ${terminalText(event.label)}\n`);
        return;
      }
      current = event;
      if (!tty) return;
      draw();
      timer = setInterval(draw, 80);
      timer.unref?.();
    },
    stepFinished({ depth, total, step }) {
      clear();
      current = undefined;
      out.write(`${indent(depth)}${finishedLine(step, total)}\n`);
      for (const m of [...(step.messages?.beforeTool ?? []), ...(step.messages?.afterResult ?? [])]) out.write(`${indent(depth)}    ⚑ ${terminalText(m)}\n`);
      if (step.status === "failed" && step.reason)
        out.write(
          `${indent(depth)}    ${terminalText(step.reason)
            .split("\n")
            .join(`\n${indent(depth)}    `)}\n`,
        );
      else if (step.status === "succeeded" && step.kind !== "note" && step.kind !== "workflow") {
        const first = (step.summary ?? "").split("\n").find((l) => l.trim() !== "");
        if (first) out.write(`${indent(depth)}    ↳ ${terminalText(first.length > 100 ? `${first.slice(0, 99)}…` : first)}\n`);
      }
    },
    pause() {
      clear();
    },
    resume() {
      if (!tty || !current || timer) return;
      draw();
      timer = setInterval(draw, 80);
      timer.unref?.();
    },
    close() {
      clear();
      current = undefined;
    },
  };
}

/** `✓ [2/5] Inspect diff: Read src/ (12 ms)`: one finished step as terminal-safe text (its label comes from the workflow file). */
export function finishedLine(step: StepRecord, total: number): string {
  const mark = step.status === "succeeded" ? "✓" : step.status === "skipped" ? "-" : step.status === "cancelled" ? "⊘" : "✗";
  const note =
    step.status === "skipped"
      ? ` (skipped: ${terminalText(step.reason ?? "skipped")})`
      : step.continued
        ? " (failed, continuing)"
        : step.status === "cancelled"
          ? " (cancelled)"
          : "";
  return `${mark} ${counter(step.index, total)} ${terminalText(step.label)} ${formatDuration(step.durationMs)}${note}`;
}

/** `12 ms`, `1.4 s`, `2 min 3 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `(${Math.round(ms)} ms)`;
  if (ms < 60_000) return `(${(ms / 1000).toFixed(1)} s)`;
  return `(${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s)`;
}

function counter(index: number, total: number): string {
  return `[${index + 1}/${total}]`;
}

function indent(depth: number): string {
  return "  ".repeat(depth);
}
