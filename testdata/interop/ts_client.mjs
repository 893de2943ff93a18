// Interop check: the official TypeScript SDK client (which validates every
// structuredContent against the tool's outputSchema and rejects a tools/list
// whose schemas lack "type": "object") drives a real `uiscope mcp`.
// Run with `make interop` (needs node and the npm registry).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({
  command: process.env.UISCOPE_BIN,
  args: ["mcp", "--allow-input", "--sandbox", "--launch", "gtk3-widget-factory"],
  stderr: "ignore",
});
const client = new Client({ name: "ts-interop", version: "1" });
await client.connect(transport);
const tools = await client.listTools();
console.log("tools:", tools.tools.length);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  const sc = r.structuredContent;
  const txt = JSON.parse(r.content[0].text);
  if (JSON.stringify(sc) !== JSON.stringify(txt)) throw new Error(`${name}: structuredContent differs from the text`);
  console.log(name, "ok=" + sc.ok, r.isError ? "isError" : "", sc.errorCode || "");
  return sc;
};
let apps;
for (let i = 0; i < 50; i++) {
  apps = await call("list_apps", {});
  if (apps.apps.some(a => a.accessible)) break;
  await new Promise(r => setTimeout(r, 200));
}
const pid = apps.apps.find(a => a.accessible).pid;
const c = await call("connect", { pid });
const s = c.session;
const t = await call("get_a11y_tree", { session: s, format: "json", maxNodes: 50 });
const o = await call("get_a11y_tree", { session: s, view: "control", maxNodes: 20 });
const f = await call("find_elements", { session: s, role: "check box", limit: 10 });
await call("get_element_properties", { session: s, element: f.elements[0].ref });
await call("hit_test", { session: s, x: f.elements[0].bounds.x + 2, y: f.elements[0].bounds.y + 2 });
await call("hit_test", { session: s, x: 5000, y: 5000 });
await call("get_frameworks", { session: s });
await call("wait_for", { session: s, name: "Never", until: "appears", timeoutMs: 300 });
const enabled = f.elements.find(e => e.states.includes("sensitive"));
await call("toggle", { session: s, element: enabled.ref });
await call("get_a11y_tree", { session: "nope" });
await call("disconnect", { session: s });
await client.close();
console.log("interop: all calls validated by the TypeScript SDK client");
