// An MCP server of ours for what the npm servers cannot show: a server that dies mid-session
// (`exit_now`), one whose tools change while it runs (`add_tool` adds `added`), a destructive tool (`forget_all`, logs when it runs), a tool without annotations
// (`unclaimed`, logs when it runs), and a call that waits until the client cancels it (`wait`), which it logs, so a
// test can see that the cancellation reached the server.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "flaky", version: "1.0.0" });

// A server that starts a helper process of its own (as `npx` or a shell does): a suite checks
// that the helper ends with the server.
if (process.env.HELPER_PID_FILE) {
  const { spawn } = await import("node:child_process");
  const { writeFileSync } = await import("node:fs");
  const helper = spawn("sleep", ["300"], { stdio: "ignore" });
  writeFileSync(process.env.HELPER_PID_FILE, String(helper.pid));
}

// A suite that passes secrets as arguments checks they arrived (and nowhere else).
if (process.env.ARGS_FILE) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(process.env.ARGS_FILE, JSON.stringify(process.argv.slice(2)));
}

server.registerTool(
  "exit_now",
  { description: "Ends the server's process.", annotations: { destructiveHint: false } },
  async () => {
    setTimeout(() => process.exit(1), 10);
    return { content: [{ type: "text", text: "exiting" }] };
  },
);

server.registerTool(
  "forget_all",
  { description: "Pretends to delete everything.", annotations: { destructiveHint: true } },
  async () => {
    process.stderr.write("forget_all: ran\n");
    return { content: [{ type: "text", text: "forgot everything" }] };
  },
);

server.registerTool(
  "add_tool",
  { description: "Adds the tool `added` (the SDK tells the client its list changed).", annotations: { readOnlyHint: true } },
  async () => {
    server.registerTool(
      "added",
      { description: "Added while the server ran.", annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: "text", text: "added ran" }] }),
    );
    return { content: [{ type: "text", text: "added" }] };
  },
);

server.registerTool(
  "unclaimed",
  { description: "Claims nothing about itself (no annotations)." },
  async () => {
    process.stderr.write("unclaimed: ran\n");
    return { content: [{ type: "text", text: "done" }] };
  },
);

server.registerTool(
  "wait",
  { description: "Waits until the call is cancelled.", annotations: { readOnlyHint: true } },
  // Without an input schema the SDK passes only `extra`.
  async (extra) =>
    new Promise((resolve) => {
      process.stderr.write("wait: started\n");
      extra.signal.addEventListener("abort", () => {
        process.stderr.write("wait: cancelled by the client\n");
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      });
    }),
);

await server.connect(new StdioServerTransport());
process.stderr.write("flaky: ready\n");
