// The official TypeScript SDK's OAuth client against a running mcpdir, with
// Debian's Chromium (playwright-core) as the person's browser:
//   node oauth-client.mjs BASE_URL [SCREENSHOT_DIR]
// The client has nothing but the MCP endpoint's URL: StreamableHTTPClientTransport
// with an OAuthClientProvider finds the metadata from the 401, registers
// itself, and sends the browser to the authorization page with PKCE. The
// browser logs in ("Email", "Password", "Log in"), sees the consent page,
// presses "Allow", and is redirected to the client's loopback callback
// (the page's CSP must let that happen). The client exchanges the code,
// reconnects, and calls search_mcp; the app is then listed under
// "Connected apps" and revoked with "Revoke".
import { createServer } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { axeSource, check, finish, launch } from "./harness.mjs";

const [base, shots] = process.argv.slice(2);
const endpoint = new URL(base + "/api/open/mcp");

// The client's loopback redirect URI: a server that takes the code.
let gotCallback;
const callback = new Promise((resolve) => { gotCallback = resolve; });
const listener = createServer((req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  if (u.pathname !== "/callback") { res.writeHead(404).end(); return; }
  res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>Connected</title><p>You can close this window.</p>");
  gotCallback(u.searchParams);
});
await new Promise((r) => listener.listen(0, "127.0.0.1", r));
const redirectUrl = `http://127.0.0.1:${listener.address().port}/callback`;

const browser = await launch();
const context = await browser.newContext();
const page = await context.newPage();
const axe = async (label) => {
  await page.evaluate(axeSource); // through the devtools protocol: the page's CSP forbids inline script
  const res = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = res.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  check(`axe: no serious or critical violation on ${label}`, bad.length === 0, JSON.stringify(bad.map((v) => [v.id, v.nodes.length])));
};

// What an app keeps between runs, in memory.
const store = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: "mcpdir e2e (TypeScript SDK)", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  state: () => "e2e-state",
  clientInformation: () => store.client,
  saveClientInformation: (c) => { store.client = c; },
  tokens: () => store.tokens,
  saveTokens: (t) => { store.tokens = t; },
  saveCodeVerifier: (v) => { store.verifier = v; },
  codeVerifier: () => store.verifier,
  // The person's browser: log in, then Allow.
  redirectToAuthorization: async (url) => { store.authorizationUrl = url; },
};

try {
  // An account, then logged out: the flow must pass through the login page.
  await page.goto(base + "/signup");
  await page.getByLabel("Email").fill("oauth@example.com");
  await page.getByLabel("Password").fill("a long enough password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(/\/keys$/);
  await page.getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(base + "/");

  const client = new Client({ name: "mcpdir-e2e-oauth", version: "1.0.0" });
  let unauthorized = false;
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
  } catch (e) {
    unauthorized = e instanceof UnauthorizedError;
    if (!unauthorized) throw e;
  }
  check("without a token the SDK discovers, registers and asks to authorize", unauthorized && store.client?.client_id && store.authorizationUrl,
    JSON.stringify(store.client));
  const auth = new URL(store.authorizationUrl);
  check("the authorization request carries PKCE S256 and the resource",
    auth.searchParams.get("code_challenge_method") === "S256" && auth.searchParams.get("resource") === endpoint.href, auth.href);

  await page.goto(auth.href);
  await page.waitForURL(/\/login\?next=/);
  check("logged out, the authorization page sends to the login page", await page.getByRole("button", { name: "Log in" }).count() === 1);
  await page.getByLabel("Email").fill("oauth@example.com");
  await page.getByLabel("Password").fill("a long enough password");
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(/\/oauth\/authorize\?/);
  const consent = await page.locator("main").textContent();
  check("the consent page names the client, not verified", consent.includes("mcpdir e2e (TypeScript SDK)") && consent.includes("not verified"));
  check("the consent page has Allow and Deny", await page.getByRole("button", { name: "Allow" }).count() === 1 &&
    await page.getByRole("button", { name: "Deny" }).count() === 1);
  await axe("the consent page");
  if (shots) await page.screenshot({ path: `${shots}/consent.png` });
  await page.getByRole("button", { name: "Allow" }).click();
  const params = await Promise.race([callback, new Promise((_, no) => setTimeout(() => no(new Error("no redirect to the client within 10 s")), 10000))]);
  check("Allow redirects the browser to the client's loopback URI with code, state and iss",
    params.get("code") && params.get("state") === "e2e-state" && params.get("iss") === base, params.toString());

  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await transport.finishAuth(params.get("code"));
  check("the SDK exchanged the code for tokens", store.tokens?.access_token?.startsWith("mcpdat_") && store.tokens?.refresh_token);
  const again = new Client({ name: "mcpdir-e2e-oauth", version: "1.0.0" });
  await again.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
  const res = await again.callTool({ name: "search_mcp", arguments: { keywords: "postgres" } });
  check("tools/call search_mcp answers with the token", !res.isError && res.structuredContent?.success === true && res.structuredContent.count > 0,
    JSON.stringify(res).slice(0, 300));
  await again.close();

  await page.goto(base + "/keys");
  check("/keys lists the app under Connected apps", await page.getByRole("heading", { name: "Connected apps" }).count() === 1 &&
    (await page.locator("table.apps").textContent()).includes("mcpdir e2e (TypeScript SDK)"));
  await axe("/keys with a connected app");
  await page.locator("table.apps").getByRole("button", { name: "Revoke" }).click();
  await page.waitForURL(/\/keys$/);
  const status = (await fetch(base + "/api/open/v1/search?keywords=postgres", { headers: { Authorization: "Bearer " + store.tokens.access_token } })).status;
  check("Revoke ends the app's access token", status === 401, String(status));
} catch (e) {
  check("OAuth session", false, e.stack);
} finally {
  await browser.close();
  listener.close();
}
finish();
