// What the browser tests (browser.mjs, oauth-client.mjs, admin.mjs) share:
// Debian's Chromium through playwright-core, axe-core's source to run in a
// page, and the tally of checks, printed and turned into the exit status by
// finish().
import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let passed = 0, failed = 0;
export const check = (name, ok, detail = "") => {
  if (ok) { passed++; console.log(`ok    ${name}`); } else { failed++; console.log(`FAIL  ${name} ${detail}`); }
};

export const launch = () => chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});

export const finish = () => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
};
