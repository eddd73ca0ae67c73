// A new player's journey in Debian's Chromium, driven by Playwright, against the face served
// at URL: home → 单机对战 → 开始 → the page reloads mid-hand and 继续牌局 takes the hand up →
// play it by tapping tiles and claim buttons (by their accessible names) → 结算 → 大厅 →
// 我的牌局 (the hand listed, its statistics) → 回放 stepped to the end → 设置 → English (home
// and a new table in the player's other language). Screenshots of
// each screen go to OUT, at 390×844 and 1280×800, and axe-core checks every screen: a serious
// or critical accessibility violation fails the run.
//
//   node web/tests/journey.mjs http://127.0.0.1:8080/ /tmp/shots
import fs from "node:fs";
import { audit, launch, reportProblems } from "./common.mjs";

const [url = "http://127.0.0.1:8080/", out = "shots"] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const browser = await launch();
const claims = ["胡", "过", "吃", "碰", "杠"];
for (const [name, viewport] of [["phone", { width: 390, height: 844 }], ["desktop", { width: 1280, height: 800 }]]) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const started = Date.now();
  await page.goto(url);
  await page.getByRole("button", { name: "单机对战" }).waitFor();
  await page.screenshot({ path: `${out}/${name}-home.png` });
  await audit(page, `${name} home`);
  await page.getByRole("button", { name: "单机对战" }).click();
  await page.getByRole("button", { name: "开始" }).waitFor();
  await page.screenshot({ path: `${out}/${name}-new-match.png` });
  await audit(page, `${name} new match`);
  await page.getByRole("button", { name: "开始" }).click();
  await page.locator(".hand-row").waitFor();
  console.log(`${name}: first table on screen ${Date.now() - started} ms after the load began`);
  await page.screenshot({ path: `${out}/${name}-table.png` });
  await audit(page, `${name} table`);
  // A reload mid-hand: the kept match is offered and continues where it was.
  await page.reload();
  await page.getByRole("button", { name: "继续牌局" }).click();
  await page.locator(".hand-row").waitFor();
  let claimShot = false;
  let hintShot = false;
  for (let i = 0; i < 600; i++) {
    if (await page.locator("h1", { hasText: "结算" }).count()) break;
    const hint = page.getByRole("button", { name: "提示" });
    if (!hintShot && (await hint.isEnabled({ timeout: 500 }).catch(() => false))) {
      await hint.click();
      await page.screenshot({ path: `${out}/${name}-hint.png` });
      hintShot = true;
    }
    let tapped = false;
    for (const c of claims.slice(0, 2)) {
      const b = page.getByRole("button", { name: c, exact: true });
      // The screen may move on between two looks (a bot's win ends the hand): a button
      // gone is looked for again on the next round, never waited on.
      if ((await b.count()) && (await b.isEnabled({ timeout: 500 }).catch(() => false))) {
        if (!claimShot && c === "过") {
          await page.screenshot({ path: `${out}/${name}-claim.png` });
          await audit(page, `${name} claim`);
          claimShot = true;
        }
        tapped = await b.click({ timeout: 500 }).then(() => true, () => false);
        break;
      }
    }
    if (tapped) continue;
    const tile = page.locator("button.tile.hand:enabled").last();
    if (await tile.count()) {
      await tile.click({ timeout: 500 }).catch(() => undefined);
      continue;
    }
    await page.waitForTimeout(100);
  }
  await page.locator("h1", { hasText: "结算" }).waitFor({ timeout: 5000 });
  // Figures over the whole hand: a tap to the changed screen drawn, and the hint.
  const taps = await page.evaluate(() => globalThis.tongchengTimings);
  const pick = (kinds) => taps.filter((t) => kinds.includes(t.tap)).map((t) => t.ms).sort((a, b) => a - b);
  const pct = (xs, p) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))].toFixed(2) : "—");
  const table = pick(["discard", "claim", "choose"]);
  const hints = pick(["hint"]);
  const slowest = taps.filter((t) => t.tap !== "hint").sort((a, b) => b.ms - a.ms).slice(0, 3);
  console.log(
    `${name}: tap to drawn over ${table.length} taps: median ${pct(table, 50)} ms, p99 ${pct(table, 99)} ms; hint ${pct(hints, 50)} ms; slowest ${slowest.map((t) => `${t.tap} ${t.ms.toFixed(1)}`).join(", ")}`,
  );
  await page.screenshot({ path: `${out}/${name}-result.png`, fullPage: true });
  await audit(page, `${name} result`);
  // 大厅, then the hand under 我的牌局 and its replay, stepped to the result.
  await page.getByRole("button", { name: "大厅" }).click();
  await page.getByRole("button", { name: "我的牌局" }).click();
  const open = page.getByRole("button", { name: /^回放 / });
  await open.first().waitFor();
  if ((await open.count()) !== 1) throw new Error(`${name}: ${await open.count()} hands listed, not 1`);
  await page.screenshot({ path: `${out}/${name}-my-hands.png`, fullPage: true });
  await audit(page, `${name} my hands`);
  await open.click();
  await page.getByRole("button", { name: "下一步" }).waitFor();
  for (let i = 0; i < 12; i++) await page.getByRole("button", { name: "下一步" }).click();
  await page.screenshot({ path: `${out}/${name}-replay.png` });
  await audit(page, `${name} replay`);
  await page.getByRole("button", { name: "终局" }).click();
  await page.locator("h2", { hasText: "结算" }).waitFor();
  if (!(await page.getByText("牌谱已验证").count())) throw new Error(`${name}: the replay is not verified`);
  await page.screenshot({ path: `${out}/${name}-replay-end.png`, fullPage: true });
  await page.getByRole("button", { name: "返回列表" }).first().click();
  await page.getByRole("button", { name: "全部玩法" }).waitFor();
  await page.getByRole("button", { name: "返回" }).click();
  await page.getByRole("button", { name: "设置" }).click();
  await page.getByRole("button", { name: "English" }).waitFor();
  await audit(page, `${name} settings`);
  // 关联设备: the code's own keypad (and the keyboard's letters press the same keys).
  await page.getByRole("button", { name: "关联设备" }).click();
  await page.getByRole("button", { name: "显示关联码" }).waitFor();
  for (const key of "AB2") await page.keyboard.press(key.toLowerCase());
  await page.getByText("AB2", { exact: true }).waitFor();
  await page.screenshot({ path: `${out}/${name}-link.png`, fullPage: true });
  await audit(page, `${name} link devices`);
  await page.getByRole("button", { name: "返回" }).click();
  await page.getByRole("button", { name: "English" }).waitFor();
  if (name === "phone") {
    // The installed app offline: once the service worker holds every file, the page opens
    // and deals a hand with the network cut.
    await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      while (!navigator.serviceWorker.controller && reg.active?.state !== "activated") await new Promise((r) => setTimeout(r, 50));
    });
    await page.context().setOffline(true);
    const offline = Date.now();
    await page.reload();
    await page.getByRole("button", { name: "单机对战" }).click();
    await page.getByRole("button", { name: "开始" }).click();
    await page.locator(".hand-row").waitFor();
    console.log(`${name}: offline (service worker), first table on screen ${Date.now() - offline} ms after the reload began`);
    await page.context().setOffline(false);
  }
  // English, the player's choice: the same screens from the catalogue's other language.
  await page.goto(url);
  await page.getByRole("button", { name: "设置" }).click();
  await page.getByRole("button", { name: "English" }).click();
  await page.getByRole("button", { name: "Back" }).click();
  await page.getByRole("button", { name: "Play vs bots" }).waitFor();
  await page.screenshot({ path: `${out}/${name}-home-en.png` });
  await audit(page, `${name} home in English`);
  await page.getByRole("button", { name: "Play vs bots" }).click();
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".hand-row").waitFor();
  await page.screenshot({ path: `${out}/${name}-table-en.png` });
  await audit(page, `${name} table in English`);
  if (errors.length) throw new Error(`${name}: page errors: ${errors.join("; ")}`);
  console.log(`${name}: a whole hand played by tapping; screenshots in ${out}`);
  await page.close();
}
await browser.close();
reportProblems();
