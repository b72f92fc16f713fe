// The MCP client Claude Code and most agents use (the TypeScript SDK), driven line by line
// by bench_turns.py: a JSON {tool, args} per line on stdin, the result's JSON per line out.
//
//   node mcp_client.mjs http <url> <token>
//   node mcp_client.mjs stdio '<{"command", "args", "env", "cwd"} as JSON>'
//
// It lists the tools once after connecting, as clients do (the SDK then checks each result
// against the tool's outputSchema).
import readline from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, token] = process.argv.slice(2);
let transport;
if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else if (mode === "stdio") {
  const spec = JSON.parse(target);
  transport = new StdioClientTransport({ ...spec, stderr: "ignore" });
} else {
  console.error(`usage: mcp_client.mjs http <url> <token> | stdio <json>`);
  process.exit(2);
}
const client = new Client({ name: "bench-ts", version: "1" });
await client.connect(transport);
await client.listTools();
process.stdout.write(JSON.stringify({ ready: true }) + "\n");

for await (const line of readline.createInterface({ input: process.stdin })) {
  const { tool, args } = JSON.parse(line);
  try {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: 120_000,
    });
    const out = { isError: result.isError ?? false, out: result.structuredContent ?? null };
    process.stdout.write(JSON.stringify(out) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ isError: true, error: String(error) }) + "\n");
  }
}
await client.close();
