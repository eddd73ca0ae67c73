// What the browser journeys share: Debian's Chromium through Playwright, and axe-core over
// each screen (serious and critical violations are collected and fail the run at its end).
import { chromium } from "playwright-core";
import fs from "node:fs";
import { createRequire } from "node:module";

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
export const problems = [];

// axe-core over the screen as it is now; serious and critical violations are kept as problems.
export async function audit(page, where) {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const r = await globalThis.axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  });
  for (const f of found) problems.push(`${where}: ${f}`);
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}

// Exits with failure when any screen had a serious or critical violation.
export function reportProblems() {
  if (problems.length) {
    console.error(`accessibility: ${problems.length} serious or critical violations\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log("accessibility: no serious or critical violation on any screen (axe-core)");
}
