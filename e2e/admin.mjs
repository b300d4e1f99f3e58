// The admin page in a real browser (Debian's Chromium through
// playwright-core): an ordinary account gets the 403 page; a promoted one
// opens /admin, which axe-core finds no accessibility violation on (of any
// impact), with the chart as an SVG with its text alternative and table;
// an approval from the page is in its audit as the account's.
//   node admin.mjs BASE_URL ADMIN_EMAIL ORDINARY_EMAIL PASSWORD [SCREENSHOT_DIR]
import { axeSource, check, finish, launch } from "./harness.mjs";

const [base, adminEmail, ordinaryEmail, password, shots] = process.argv.slice(2);

const browser = await launch();
const axe = async (page, label) => {
  await page.evaluate(axeSource); // through the devtools protocol: the page's CSP forbids inline script
  const res = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  check(`axe: no violation on ${label}`, res.violations.length === 0,
    JSON.stringify(res.violations.map((v) => [v.id, v.impact, v.nodes.length, v.nodes[0]?.target])));
};
const logIn = async (page, email) => {
  await page.goto(base + "/login?next=/admin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(/\/admin$/);
};
try {
  const anon = await browser.newPage();
  await anon.goto(base + "/admin");
  check("no one signed in: /admin sends to /login", /\/login\?next=%2Fadmin$/.test(anon.url()), anon.url());
  await anon.close();

  const ordinaryContext = await browser.newContext();
  const ordinary = await ordinaryContext.newPage();
  await logIn(ordinary, ordinaryEmail);
  const resp = await ordinary.reload();
  check("an ordinary account: /admin is the 403 page", resp.status() === 403 &&
    await ordinary.getByRole("heading", { name: "Forbidden" }).count() === 1 && await ordinary.getByRole("link", { name: "Admin" }).count() === 0);
  await axe(ordinary, "the 403 page");
  await ordinaryContext.close();

  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  await logIn(page, adminEmail);
  check("a promoted account opens /admin", await page.getByRole("heading", { name: "Admin", level: 1 }).count() === 1 &&
    await page.getByRole("link", { name: "Admin" }).count() === 1);
  for (const h of ["Searches of the last 7 days", "Queries", "Keys and apps by use", "Recent tool changes", "Poisoning warnings",
    "Registry sync", "Conflicts", "Recent actions (audit)", "Entries"]) {
    check(`the section “${h}”`, await page.getByRole("heading", { name: h, level: 2 }).count() === 1);
  }
  const chart = page.getByRole("img", { name: "Searches a day by door" });
  check("the chart is an SVG image named by its <title>, described by its summary", await chart.count() === 1 &&
    /searches in the last 7 days/.test(await page.locator("#chart-desc").textContent()));
  check("the chart has a table besides", await page.getByText("The chart as a table").count() === 1);
  const queries = page.locator("ol.queries a");
  check("the queries link to a search", await queries.count() === 0 || (await queries.first().getAttribute("href")).startsWith("/?q="));
  check("a flagged server is among the poisoning warnings", (await page.locator("#warnings + table, section[aria-labelledby=warnings]").first().textContent()).includes("tide-notes"));
  await axe(page, "/admin");
  if (shots) await page.screenshot({ path: `${shots}/admin.png`, fullPage: true });

  // An action: approve the first entry of a search, from the page.
  await page.getByLabel("Search the entries").fill("tide notes");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await page.waitForURL(/q=tide/);
  await page.getByRole("button", { name: "Approve tide-notes" }).click();
  await page.waitForURL(/done=approve/);
  check("approving from the page says so", await page.getByText("The entry was approved.").count() === 1);
  const audit = await page.locator("section[aria-labelledby=audit] table").textContent();
  check("the approval is in the audit as the account's", audit.includes("entry.approve") && audit.includes("account " + adminEmail), audit);
  await axe(page, "/admin after an action");

  await page.getByLabel("Search the entries").fill("tide notes");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await page.waitForURL(/q=tide/);
  await page.getByRole("link", { name: "Edit tide-notes" }).click();
  await page.waitForURL(/\/admin\/entries\//);
  await axe(page, "the edit form");
  if (shots) await page.screenshot({ path: `${shots}/admin-edit.png`, fullPage: false });
  await page.getByLabel("Brief").fill("Tide notes, its brief edited on /admin");
  await page.getByRole("button", { name: "Save" }).click();
  await page.waitForURL(/done=edit/);
  check("an edit from the page is in the audit", (await page.locator("section[aria-labelledby=audit] table").textContent()).includes("entry.replace"));
  await context.close();
} catch (e) {
  check("browser session", false, e.stack);
} finally {
  await browser.close();
}
finish();
