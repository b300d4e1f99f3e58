// The public pages in a real browser (Debian's Chromium through
// playwright-core): search by the box's accessible name, open a result,
// the 404 page, and axe-core finding no serious or critical accessibility
// violation on the front page, a results page and a server page.
//   node browser.mjs BASE_URL [SCREENSHOT_DIR]
import { axeSource, check, finish, launch } from "./harness.mjs";

const [base, shots] = process.argv.slice(2);

const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
const axe = async (label) => {
  await page.evaluate(axeSource); // through the devtools protocol: the page's CSP forbids inline script
  const res = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = res.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  check(`axe: no serious or critical violation on ${label}`, bad.length === 0, JSON.stringify(bad.map((v) => [v.id, v.nodes.length])));
};
const shot = async (name) => { if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: false }); };
try {
  await page.goto(base + "/");
  const box = page.getByRole("searchbox", { name: /Search/ });
  check("the search box is found by its accessible name", await box.count() === 1);
  await axe("the front page");
  await shot("front-page");
  await box.fill("github");
  await box.press("Enter");
  await page.waitForURL(/q=github/);
  const results = page.locator("ol.results > li a.name");
  check("a search shows results", await results.count() > 0, String(await results.count()));
  await axe("a results page");
  await shot("search-results");
  const first = await results.first().textContent();
  await results.first().click();
  await page.waitForURL(/\/servers\//);
  check("a result opens its server page", (await page.locator("h1").first().textContent()).includes(first.trim()));
  check("the server page has install snippets", await page.getByRole("heading", { name: "Claude Desktop" }).count() === 1);
  const cursorLink = await page.getByRole("link", { name: "Add to Cursor" }).getAttribute("href");
  const vscodeLink = await page.getByRole("link", { name: "Add to VS Code" }).getAttribute("href");
  check("the server page has one-click install links", cursorLink?.startsWith("cursor://anysphere.cursor-deeplink/mcp/install?name=") &&
    vscodeLink?.startsWith("vscode:mcp/install?"), `${cursorLink} ${vscodeLink}`);
  await axe("a server page");
  await shot("server-page");
  // Live checks: the status in words on results and server pages.
  await page.goto(base + "/?q=hosted+tide");
  const chips = await page.locator("ol.results").textContent();
  check("results say a hosted server's status in words", chips.includes("Needs sign-in") && chips.includes("Down"), chips);
  await axe("results with live statuses");
  await page.locator("ol.results a.name", { hasText: "hosted-tide-charts" }).click();
  await page.waitForURL(/\/servers\//);
  const when = await page.locator("p.live time").getAttribute("datetime");
  check("a checked server's page says Down, with a <time>", (await page.locator("p.live").textContent()).includes("Down") && !isNaN(Date.parse(when)), when);
  await axe("a checked server's page");
  // Tool poisoning: a flagged server says so in results and on its page,
  // and shows its invisible characters as escapes.
  await page.goto(base + "/?q=tide+notes");
  check("results count a server's tool warnings", (await page.locator("ol.results").textContent()).includes("tool warnings"));
  await page.getByRole("checkbox", { name: /Hide servers whose tools raised warnings/ }).check();
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/warnings=none/);
  check("the box hides the flagged server", !(await page.locator("main").textContent()).includes("tide-notes"));
  await axe("results without flagged servers");
  await page.goto(base + "/?q=tide+notes");
  await page.locator("ol.results a.name", { hasText: "tide-notes" }).click();
  await page.waitForURL(/\/servers\//);
  const warnings = await page.locator("ul.tool-warnings").textContent();
  check("a poisoned server's page lists its warnings with the spans", await page.getByRole("heading", { name: "Warnings about its tools" }).count() === 1 &&
    warnings.includes("Hidden instruction") && warnings.includes("<IMPORTANT>") && warnings.includes("~/.ssh"), warnings);
  const text = await page.locator("main").textContent();
  check("the page shows invisible characters as escapes", text.includes("\\u{200B}") && !text.includes("\u200b"));
  await axe("a poisoned server's page");
  await shot("server-warnings");
  const resp = await page.goto(base + "/servers/00000000-0000-0000-0000-000000000000");
  check("an unknown server is a 404 page", resp.status() === 404 && await page.getByRole("heading", { name: "Not found" }).count() === 1);

  // An account: sign up, make a key, use it, see only its prefix after a
  // reload, revoke it, log out, and a wrong password.
  await page.goto(base + "/signup");
  await axe("/signup");
  await shot("signup");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password").fill("a long enough password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(/\/keys$/);
  check("sign-up lands on the API Keys page", await page.getByRole("heading", { name: "API Keys" }).count() === 1);
  await page.getByLabel("Name").fill("laptop");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.locator("#new-key").textContent()).trim();
  check("a new key is shown once, with client configurations", /^mcpd_/.test(key) && await page.getByRole("heading", { name: "Claude Code" }).count() === 1);
  await axe("/keys with a new key");
  await shot("keys-new");
  const search = async () => (await fetch(base + "/api/open/v1/search?keywords=github", { headers: { Authorization: "Bearer " + key } })).status;
  check("the key works against REST", await search() === 200);
  await page.goto(base + "/keys");
  const html = await page.content();
  check("after a reload only the prefix is shown", !html.includes(key) && html.includes(key.slice(0, 13)));
  await page.getByRole("button", { name: "Revoke laptop" }).click();
  await page.waitForURL(/\/keys$/);
  check("a revoked key says so in words", (await page.locator("table.keys").textContent()).includes("revoked"));
  check("the revoked key is refused by REST", await search() === 401);
  await axe("/keys");
  await page.getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(base + "/");
  check("logged out, /keys sends to /login", (await page.goto(base + "/keys")) && /\/login$/.test(page.url()));
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Log in" }).click();
  check("a wrong password is said in plain words", await page.getByText("Invalid email or password").count() === 1);

  // Two accounts: Bob, in a browser of his own, sees nothing of Ada's.
  const bobContext = await browser.newContext();
  const bob = await bobContext.newPage();
  await bob.goto(base + "/signup");
  await bob.getByLabel("Email").fill("bob@example.com");
  await bob.getByLabel("Password").fill("bob's long password");
  await bob.getByRole("button", { name: "Sign up" }).click();
  await bob.waitForURL(/\/keys$/);
  check("another account sees none of Ada's keys", !(await bob.content()).includes(key.slice(0, 13)));
  // A request from a page of another origin, with Bob's cookie: refused
  // (403); the same request from the directory's own origin goes through.
  const post = (origin, site) => bobContext.request.post(base + "/keys", {
    form: { name: "from " + site, expires: "never" },
    headers: { Origin: origin, "Sec-Fetch-Site": site }, maxRedirects: 0,
  });
  const foreign = await post("https://evil.example.com", "cross-site");
  const own = await post(base, "same-origin");
  check("a POST from a foreign origin is refused (403)", foreign.status() === 403 && own.status() === 201, `${foreign.status()} / ${own.status()}`);
  await bobContext.close();
} catch (e) {
  check("browser session", false, e.stack);
} finally {
  await browser.close();
}
finish();
