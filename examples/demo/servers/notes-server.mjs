#!/usr/bin/env node
// A small MCP server for the keel demo, written with the official TypeScript SDK over stdio.
// Tools: add_note (text → id) and list_notes. Notes live in memory for the life of the server.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const notes = [];
const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "add_note",
  {
    title: "Add a note",
    description: "Store a short note and return its number.",
    inputSchema: { text: z.string().min(1).describe("The note text") },
  },
  async ({ text }) => {
    notes.push(text);
    return {
      content: [{ type: "text", text: `Saved note #${notes.length}: ${text}` }],
      structuredContent: { id: notes.length, count: notes.length },
    };
  },
);

server.registerTool(
  "list_notes",
  { title: "List notes", description: "Every note stored so far, numbered.", inputSchema: {} },
  async () => ({
    content: [{ type: "text", text: notes.length ? notes.map((n, i) => `${i + 1}. ${n}`).join("\n") : "No notes yet." }],
  }),
);

await server.connect(new StdioServerTransport());
