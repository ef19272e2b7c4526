/** Marks the listeners of PluginImports (another host's loading plugins at the same time is not a program's listener). */
const OWN = Symbol.for("keel.pluginImports");

/** True when something other than a PluginImports listens for unhandled rejections. */
function othersListen(): boolean {
  return process.listeners("unhandledRejection").some((l) => !(OWN in l));
}

/**
 * Imports code plugins' modules for one host. On Node 20, an error thrown while a CommonJS file that
 * an ES module imports is evaluated is reported twice: as the rejection of `import()` (which keel
 * turns into a diagnostic) and again as an unhandled rejection of Node's own, which would end the
 * whole process — so one broken plugin made every command fail with a stack trace and no diagnostic.
 * From the first import until one turn after `close`, that second report of an error an import
 * rejected with is dropped; any other unhandled rejection still ends the process, as it does without
 * a listener (one reported while a plugin loads, at `close`) — unless the program embedding keel
 * listens for them itself, which then decides, as it would without keel's listener.
 */
export class PluginImports {
  /** What the imports rejected with: Node's duplicate reports of these are dropped. */
  private readonly failed = new Set<unknown>();
  /** Other unhandled rejections reported before `close`, rethrown then. */
  private readonly early: unknown[] = [];
  private listening = false;
  private closed = false;
  private readonly onUnhandled = Object.assign(
    (reason: unknown): void => {
      // An embedding program's own listener has it (Node calls every listener): that program decides.
      if (this.failed.has(reason) || othersListen()) return;
      if (!this.closed) this.early.push(reason);
      else throw reason; // as Node does without a listener
    },
    { [OWN]: true },
  );

  /** Imports `href` (rejecting with the module's error, reported once). */
  async import(href: string): Promise<Record<string, unknown>> {
    if (!this.listening && !this.closed) {
      this.listening = true;
      process.on("unhandledRejection", this.onUnhandled);
    }
    try {
      return (await import(href)) as Record<string, unknown>;
    } catch (error) {
      this.failed.add(error);
      throw error;
    }
  }

  /** Stops listening once Node has reported what this turn's failed imports left behind. */
  close(): void {
    if (!this.listening || this.closed) return;
    this.closed = true;
    for (const reason of this.early.splice(0))
      if (!this.failed.has(reason))
        setImmediate(() => {
          throw reason;
        });
    setImmediate(() => process.off("unhandledRejection", this.onUnhandled));
  }
}
