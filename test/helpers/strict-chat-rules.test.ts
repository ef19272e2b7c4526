import { describe, expect, it } from "vitest";
import { chatRuleError } from "./strict-chat-rules.js";

const call = (id: string, name = "read_file", args: unknown = "{}") => ({ id, type: "function", function: { name, arguments: args } });
const asks = (...calls: object[]) => ({ role: "assistant", content: null, tool_calls: calls });
const answer = (id: string) => ({ role: "tool", tool_call_id: id, content: "r" });
const user = { role: "user", content: "go" };

describe("the strict server's rules (OpenAI's chat-completions message rules)", () => {
  it("accepts a valid conversation: parallel calls answered in any order, then user and assistant messages", () => {
    expect(chatRuleError([user, asks(call("a"), call("b")), answer("b"), answer("a"), user, { role: "assistant", content: "" }])).toBeUndefined();
  });

  it.each([
    ["an empty list", [], "[] is too short - 'messages'"],
    ["an unknown role", [{ role: "bot", content: "x" }], "Invalid value: 'bot'"],
    ["a call without its result", [user, asks(call("a"), call("b")), answer("a")], "did not have response messages: b"],
    ["a user message between a call and its result", [user, asks(call("a")), user, answer("a")], "did not have response messages: a"],
    ["a result without its call", [user, answer("a")], "messages with role 'tool' must be a response"],
    ["a second result of one call", [user, asks(call("a")), answer("a"), answer("a")], "messages with role 'tool' must be a response"],
    ["a repeated call id", [user, asks(call("a")), answer("a"), asks(call("a")), answer("a")], "duplicate tool call id 'a'"],
    ["an empty call id", [user, asks(call("")), answer("")], "empty string"],
    ["a call id over 40 characters", [user, asks(call("x".repeat(41))), answer("x".repeat(41))], "maximum length 40, but got a string with length 41"],
    ["arguments that are not a string", [user, asks(call("a", "read_file", {})), answer("a")], "function.arguments': expected a string"],
    ["a function name with a dot", [user, asks(call("a", "fs.read")), answer("a")], "does not match pattern"],
    ["an assistant message with no content and no calls", [user, { role: "assistant", content: null }], "expected a string, got null"],
    ["a tool message without content", [user, asks(call("a")), { role: "tool", tool_call_id: "a" }], "Invalid type for 'messages[2].content'"],
  ])("refuses %s", (_what, messages, message) => {
    expect(chatRuleError(messages)?.message).toContain(message);
  });
});
