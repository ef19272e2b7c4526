/** C0 controls except tab and newline, DEL, and C1 controls (U+0080–U+009F, e.g. the one-byte CSI U+009B). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text made safe to print to a terminal: every control character other than newline and tab —
 * ESC starting an ANSI sequence, a bare carriage return, backspace, BEL, C1 controls — is shown
 * as a visible `\u001b`-style escape instead of being interpreted. Text from MCP servers, tools
 * and models can otherwise rewrite the screen, hide lines or spoof keel's own output.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
