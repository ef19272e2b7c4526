import { formatTemplateValue, ManifestError, MAX_RENDERED_CHARS, renderTemplate, type RenderedTemplate, type RenderTemplateOptions } from "../../core/index.js";

/**
 * The characters one render may produce in all — every string of a step's arguments, its command, cwd and title —
 * so a step of N placeholder strings renders at most MAX_RENDERED_CHARS, not N times that. One per render; it holds
 * what is left, and `where` (the step and workflow file) for the error.
 */
export class RenderBudget {
  private left: number;

  constructor(
    private readonly where?: string,
    private readonly max: number = MAX_RENDERED_CHARS,
  ) {
    this.left = max;
  }

  /** `renderTemplate` within what is left, which it then takes. Throws ManifestError (naming `where`) past it. */
  render(template: string, values: Record<string, unknown>, options: Omit<RenderTemplateOptions, "maxChars"> = {}): RenderedTemplate {
    let r: RenderedTemplate;
    try {
      r = renderTemplate(template, values, { ...options, maxChars: this.left });
    } catch (error) {
      throw error instanceof ManifestError ? this.exceeded() : error;
    }
    this.left -= r.text.length;
    return r;
  }

  /**
   * Takes a lone placeholder's value (kept with its JSON type) from what is left: its text's length (a string's own,
   * another value's JSON). Throws ManifestError (naming `where`) past it, before the value is copied.
   */
  take(value: unknown): void {
    const chars = typeof value === "string" ? value.length : formatTemplateValue(value).length;
    if (chars > this.left) throw this.exceeded();
    this.left -= chars;
  }

  private exceeded(): ManifestError {
    const what = this.where ?? "The template";
    return new ManifestError(
      `${what} renders to more than ${this.max} characters in all (its placeholders repeat long values), more than keel renders at once; it was not used. Repeat placeholders less often, or pass shorter values.`,
    );
  }
}
