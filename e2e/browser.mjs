// The public pages in a real browser (Debian's Chromium through
// playwright-core): search by the box's accessible name, open a result,
// the 404 page, and axe-core finding no serious or critical accessibility
// violation on the front page, a results page and a server page.
//   node browser.mjs BASE_URL [SCREENSHOT_DIR]
import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const [base, shots] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
let passed = 0, failed = 0;
const check = (name, ok, detail = "") => {
  if (ok) { passed++; console.log(`ok    ${name}`); } else { failed++; console.log(`FAIL  ${name} ${detail}`); }
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
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
  check("a result opens its server page", (await page.locator("dl.facts").first().textContent()).includes(first.trim()));
  check("the server page has install snippets", await page.getByRole("heading", { name: "Claude Desktop" }).count() === 1);
  await axe("a server page");
  await shot("server-page");
  const resp = await page.goto(base + "/servers/00000000-0000-0000-0000-000000000000");
  check("an unknown server is a 404 page", resp.status() === 404 && await page.getByRole("heading", { name: "Not found" }).count() === 1);
} catch (e) {
  check("browser session", false, e.stack);
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
