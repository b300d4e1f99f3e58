// The official TypeScript SDK's client against a running mcpdir:
//   node ts-client.mjs URL KEY
// over Streamable HTTP (Bearer and bare key) and the legacy SSE transport.
// It connects, lists the tools, calls both tools (the client validates
// structuredContent against each tool's output schema), checks the
// failures a model acts on, and that a missing key is refused.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

const [url, key] = process.argv.slice(2);
if (!url || !key) {
  console.error("usage: node ts-client.mjs URL KEY");
  process.exit(2);
}

let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) {
    passed++;
    console.log(`  ok    ${name}`);
  } else {
    failed++;
    console.log(`  FAIL  ${name} ${detail}`);
  }
}

function streamable(authorization) {
  const headers = authorization ? { Authorization: authorization } : {};
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
}

function sse(authorization) {
  // requestInit's headers go on the event stream's GET and on every POST.
  return new SSEClientTransport(new URL(url), { requestInit: { headers: { Authorization: authorization } } });
}

async function session(name, transport) {
  console.log(`${name}:`);
  const client = new Client({ name: "mcpdir-e2e", version: "1.0.0" });
  try {
    await client.connect(transport);
    check("connect", true);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort().join(",");
    check("tools/list", names === "get_mcp_detail,search_mcp,search_tools", names);
    check("output schemas", tools.every((t) => t.outputSchema?.type === "object" && t.annotations?.readOnlyHint === true));

    const search = await client.callTool({ name: "search_mcp", arguments: { keywords: "postgres", limit: 3 } });
    const text = JSON.parse(search.content[0].text);
    check("search_mcp", !search.isError && text.success === true && text.count >= 1 && text.count <= 3 &&
      typeof text.total === "number" && text.keywords === "postgres", JSON.stringify(text).slice(0, 200));
    // The text carries lean items (a title where the server has one);
    // structuredContent the full ones.
    const lean = (it) => ({ id: it.id, name: it.name, ...(it.title ? { title: it.title } : {}), brief: it.brief,
      website_url: it.website_url, transports: it.transports });
    const sc = search.structuredContent;
    check("search_mcp structuredContent", sc.count === text.count && sc.total === text.total &&
      JSON.stringify(sc.data.map(lean)) === JSON.stringify(text.data) && sc.data.every((it) => "score" in it && "tags" in it));
    const item = text.data[0];
    check("search item fields", ["id", "name", "brief", "website_url"].every((f) => f in item), JSON.stringify(item));

    const detail = await client.callTool({ name: "get_mcp_detail", arguments: { mcp_id: item.id } });
    const d = JSON.parse(detail.content[0].text);
    check("get_mcp_detail", !detail.isError && d.success === true && d.data.id === item.id, JSON.stringify(d).slice(0, 200));

    const bad = await client.callTool({ name: "get_mcp_detail", arguments: { mcp_id: "postgres" } });
    const b = JSON.parse(bad.content[0].text);
    check("get_mcp_detail with a name, not a UUID", bad.isError === true && b.success === false && b.error.code === "invalid_request");

    const found = await client.callTool({ name: "search_tools", arguments: { keywords: "run a sql query", limit: 5 } });
    const ft = found.structuredContent;
    check("search_tools", !found.isError && ft.success === true && ft.count >= 1 && ft.count <= 5 &&
      ft.data.every((t) => t.name && t.server_id && t.fingerprint), JSON.stringify(ft).slice(0, 200));

    const clamped = await client.callTool({ name: "search_mcp", arguments: { keywords: "server", limit: 500 } });
    check("limit clamped", clamped.structuredContent.limit === 100 && /maximum/.test(clamped.structuredContent.notice));

    let unknown;
    try {
      await client.callTool({ name: "no_such_tool", arguments: {} });
    } catch (e) {
      unknown = e;
    }
    check("unknown tool is a JSON-RPC error", unknown?.code === -32602, String(unknown));
  } catch (e) {
    check("session", false, e?.stack ?? String(e));
  } finally {
    await transport.terminateSession?.().catch(() => {});
    await client.close().catch(() => {});
  }
}

await session("Streamable HTTP, Bearer key", streamable(`Bearer ${key}`));
await session("Streamable HTTP, bare key", streamable(key));
await session("SSE (2024-11-05), Bearer key", sse(`Bearer ${key}`));

console.log("Streamable HTTP, no key:");
{
  const client = new Client({ name: "mcpdir-e2e", version: "1.0.0" });
  let err;
  try {
    await client.connect(streamable(""));
  } catch (e) {
    err = e;
  }
  check("refused with 401", err !== undefined && /401|nauthorized/.test(`${err?.code} ${err?.message}`), String(err));
  await client.close().catch(() => {});
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
