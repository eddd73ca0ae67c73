// The browser's login against the real server serving the face at URL (same origin): a new
// browser opens the page and is signed in with no tap (its Ed25519 key made by WebCrypto,
// not extractable, kept in IndexedDB); a reload signs in to the same account; another
// browser gets an account of its own; the network cut and back shows it and signs in again.
// Then 快速匹配: a table against the server's bots, played by clicking tiles and claim
// buttons, the socket cut mid-hand and the hand finished after the reconnect, the result
// saying the wall verified, then 我的牌局 synced; two browsers meeting in a 好友房, one
// opening it and the other typing its code, and two meeting in 快速匹配; four in a 比赛. Screenshots go to OUT; axe-core checks each screen.
//
//   node web/tests/online.mjs http://127.0.0.1:8080/ /tmp/shots
import fs from "node:fs";
import { audit, launch, reportProblems } from "./common.mjs";

const [url = "http://127.0.0.1:8080/", out = "shots"] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const browser = await launch();

async function signedIn(page) {
  const status = page.locator(".account .status");
  await page.locator(".account.in").waitFor({ timeout: 10_000 });
  return status.textContent();
}

const fail = (why) => {
  throw new Error(`online: ${why}`);
};
// One move if the online table asks for one (胡 when open, else 过, else the drawn tile):
// true when a click went in. The screen may move under a click (a bot's move came): then
// nothing is clicked and the next look tries again.
async function move(page) {
  const win = page.getByRole("button", { name: "胡", exact: true });
  const pass = page.getByRole("button", { name: "过", exact: true });
  const tile = page.locator(".hand-row button.tile:enabled");
  try {
    if (await win.isEnabled({ timeout: 50 })) await win.click({ timeout: 500 });
    else if (await pass.isEnabled({ timeout: 50 })) await pass.click({ timeout: 500 });
    else if (await tile.count()) await tile.last().click({ timeout: 500 });
    else return false;
    return true;
  } catch {
    return false;
  }
}

// 快速匹配 → the server's table → a whole hand played by clicks, the socket cut once.
async function quickMatch(page, name) {
  const started = Date.now();
  await page.getByRole("button", { name: "快速匹配", exact: true }).click();
  await page.locator("main.table").waitFor({ timeout: 20_000 });
  console.log(`${name}: online table drawn ${Date.now() - started} ms after 快速匹配`);
  const seats = await page.locator(".seat .seat-name").allTextContents();
  if (!seats.some((s) => s.includes("（电脑）"))) fail(`${name}: no bot named at the table: ${seats}`);
  // The connection drops as soon as the hand is dealt (before a click could end it): the
  // table says so, takes the seat up again by itself, and the hand goes on.
  await page.evaluate(() => globalThis.tongchengDropSockets());
  await page.locator(".status", { hasText: "正在重连" }).waitFor({ timeout: 5_000 });
  let clicks = 0;
  let shot = false;
  const until = Date.now() + 120_000;
  while (!(await page.locator("main.result").count())) {
    if (Date.now() > until) fail(`${name}: the online hand did not end (${clicks} clicks)`);
    if (!shot && (await page.locator(".hand-row button.tile:enabled").count())) {
      await page.screenshot({ path: `${out}/${name}-online-table.png` });
      await audit(page, `${name} online table`);
      shot = true;
    }
    if (!(await move(page))) {
      await page.waitForTimeout(30);
      continue;
    }
    clicks++;
  }
  const fairness = await page.locator("main.result .fairness").textContent();
  if (!fairness.startsWith("牌墙已验证")) fail(`${name}: the online result says '${fairness}'`);
  await page.screenshot({ path: `${out}/${name}-online-result.png` });
  await audit(page, `${name} online result`);
  console.log(`${name}: an online hand played by ${clicks} clicks, reconnected once, ${fairness}`);
  await page.getByRole("button", { name: "大厅", exact: true }).click();
  await page.locator("main.home").waitFor();
  // 我的牌局: the hand is kept, and the first visit's 同步 finds it on the server already.
  await page.getByRole("button", { name: "我的牌局", exact: true }).click();
  const synced = page.locator(".sync-status", { hasText: "已同步：上传 1 局" });
  await synced.waitFor({ timeout: 10_000 });
  const line = await synced.textContent();
  if (!line.includes("全部已上传")) fail(`${name}: 同步 says '${line}'`);
  await page.screenshot({ path: `${out}/${name}-synced.png` });
  await audit(page, `${name} my hands, synced`);
  console.log(`${name}: 同步 on 我的牌局: ${line}`);
  await page.getByRole("button", { name: "立即同步", exact: true }).click();
  await page.locator(".sync-status", { hasText: "已同步：上传 0 局" }).waitFor({ timeout: 10_000 });
  await page.getByRole("button", { name: "返回", exact: true }).click();
  await page.locator("main.home").waitFor();
}

// Pages at one table play its hand to the result by clicks; every result says the wall
// verified. The clicks made.
async function playTogether(pages, what) {
  const until = Date.now() + 120_000;
  let clicks = 0;
  const done = async () => {
    let n = 0;
    for (const p of pages) n += await p.locator("main.result").count();
    return n === pages.length;
  };
  while (!(await done())) {
    if (Date.now() > until) fail(`${what}: the hand did not end (${clicks} clicks)`);
    let moved = false;
    for (const p of pages) {
      if (!(await p.locator("main.result").count()) && (await move(p))) {
        moved = true;
        clicks++;
      }
    }
    if (!moved) await pages[0].waitForTimeout(30);
  }
  for (const p of pages) {
    const fairness = await p.locator("main.result .fairness").textContent();
    if (!fairness.startsWith("牌墙已验证")) fail(`${what}: the result says '${fairness}'`);
  }
  return clicks;
}

const results = {};
for (const [name, viewport] of [["phone", { width: 390, height: 844 }], ["desktop", { width: 1280, height: 800 }]]) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const started = Date.now();
  await page.goto(url);
  const status = await signedIn(page);
  console.log(`${name}: signed in ${Date.now() - started} ms after the load began (${status})`);
  if (!status.startsWith("已登录：")) fail(`${name}: status '${status}'`);
  await page.screenshot({ path: `${out}/${name}-home-online.png` });
  await audit(page, `${name} home, signed in`);
  // The private half of the key stays inside the browser.
  const key = await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open("tongcheng", 1);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction("keys").objectStore("keys").get("device");
          get.onsuccess = () => {
            const k = get.result.privateKey;
            resolve({ algorithm: k.algorithm.name, extractable: k.extractable });
          };
        };
      }),
  );
  if (key.algorithm !== "Ed25519" || key.extractable) fail(`${name}: the device key is ${JSON.stringify(key)}`);
  // A reload is the same account (the same key).
  await page.reload();
  if ((await signedIn(page)) !== status) fail(`${name}: another account after a reload`);
  // The network cut: the home says so; back: signed in again. (Emulated offline cuts the
  // requests, but this Chromium fires no online/offline events for it: the page is told as
  // the real browser would tell it.)
  await context.setOffline(true);
  await page.evaluate(() => window.dispatchEvent(new Event("offline")));
  await page.locator(".account", { hasText: "未连接服务器" }).waitFor();
  await context.setOffline(false);
  await page.evaluate(() => window.dispatchEvent(new Event("online")));
  if ((await signedIn(page)) !== status) fail(`${name}: not the same account after the network came back`);
  await quickMatch(page, name);
  if (errors.length) fail(`${name}: page errors: ${errors.join("; ")}`);
  results[name] = status;
  await context.close();
}
if (results.phone === results.desktop) fail("two browsers got the same account");

// 好友房: the phone opens a room for two, the desktop types its code on the keyboard, and
// both play the hand to its result.
{
  const owner = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  const friend = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  for (const p of [owner, friend]) {
    await p.goto(url);
    await signedIn(p);
    await p.getByRole("button", { name: "好友房", exact: true }).click();
  }
  await owner.screenshot({ path: `${out}/phone-room.png` });
  await audit(owner, "phone 好友房");
  await owner.getByRole("button", { name: "2 人", exact: true }).click();
  await owner.getByRole("button", { name: "开房", exact: true }).click();
  const waiting = owner.locator("main.queue .status", { hasText: "房间号" });
  await waiting.waitFor({ timeout: 10_000 });
  const code = (await waiting.textContent()).match(/\d{6}/)[0];
  await friend.keyboard.type(code);
  if ((await friend.locator("main.room .code").textContent()) !== code) fail("the typed code is not shown");
  await friend.getByRole("button", { name: "加入房间", exact: true }).click();
  const clicks = await playTogether([owner, friend], "好友房");
  await friend.screenshot({ path: `${out}/desktop-room-result.png` });
  console.log(`好友房: room ${code} opened on one browser, joined by its code on another, one hand played by ${clicks} clicks, both walls verified`);
}
// 快速匹配 together: two browsers queue at once and meet at one table (the server waits
// 1.5 s before bots fill a queue's table), each seeing the other's name, and play its hand.
{
  const pages = [];
  for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
    const p = await (await browser.newContext({ viewport })).newPage();
    await p.goto(url);
    pages.push(p);
  }
  const names = [];
  for (const p of pages) names.push((await signedIn(p)).replace("已登录：", "").trim());
  await Promise.all(pages.map((p) => p.getByRole("button", { name: "快速匹配", exact: true }).click()));
  for (const [i, p] of pages.entries()) {
    await p.locator("main.table").waitFor({ timeout: 20_000 });
    const seats = await p.locator(".seat .seat-name").allTextContents();
    const other = names[1 - i];
    if (!seats.some((s) => s.includes(other))) fail(`快速匹配: ${other} is not at the table: ${seats}`);
  }
  const clicks = await playTogether(pages, "快速匹配");
  console.log(`快速匹配: two browsers (${names.join(", ")}) met at one table, one hand played by ${clicks} clicks, both walls verified`);
}
// 比赛: the operator makes a four-entrant tournament; four browsers find it under 比赛, sign
// up, ask for their table (each contributing to the round's walls), play the hand by clicks,
// are told by 下一桌 (asked on the table's own socket) that no table is left for them, come
// back to the tournament, see the standings with their own place, and check the round's
// walls in the page.
{
  const admin = process.env.TONGCHENG_ADMIN_TOKEN;
  if (!admin) fail("no TONGCHENG_ADMIN_TOKEN for the tournament");
  const made = await fetch(new URL("v1/admin/tournaments", url), {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "网页杯", format: { kind: "swiss", rounds: 1 }, hands_per_match: 1, entrants: 4 }),
  });
  if (!made.ok) fail(`the tournament was not made: ${made.status} ${await made.text()}`);
  const sizes = [
    ["phone", { width: 390, height: 844 }],
    ["desktop", { width: 1280, height: 800 }],
    ["third", { width: 390, height: 844 }],
    ["fourth", { width: 390, height: 844 }],
  ];
  const pages = [];
  for (const [name, viewport] of sizes) {
    const p = await (await browser.newContext({ viewport })).newPage();
    await p.goto(url);
    await signedIn(p);
    await p.getByRole("button", { name: "比赛", exact: true }).click();
    await p.getByRole("button", { name: "网页杯", exact: true }).click();
    await p.getByRole("button", { name: "报名", exact: true }).click();
    await p.getByRole("button", { name: "下一桌", exact: true }).waitFor();
    if (name === "phone") {
      await p.screenshot({ path: `${out}/phone-tournament-signed-up.png` });
      await audit(p, "phone 比赛");
    }
    pages.push([name, p]);
  }
  for (const [, p] of pages) await p.getByRole("button", { name: "下一桌", exact: true }).click();
  const until = Date.now() + 180_000;
  let clicks = 0;
  let shot = false;
  const done = async () => {
    let n = 0;
    for (const [, p] of pages) n += await p.locator("main.result").count();
    return n === pages.length;
  };
  while (!(await done())) {
    if (Date.now() > until) fail(`比赛: the hand did not end (${clicks} clicks)`);
    let moved = false;
    for (const [name, p] of pages) {
      if (!shot && name === "phone" && (await p.locator(".hand-row button.tile:enabled").count())) {
        await p.screenshot({ path: `${out}/phone-tournament-table.png` });
        await audit(p, "phone 比赛 table");
        shot = true;
      }
      if (!(await p.locator("main.result").count()) && (await move(p))) {
        moved = true;
        clicks++;
      }
    }
    if (!moved) await pages[0][1].waitForTimeout(30);
  }
  for (const [name, p] of pages) {
    const fairness = await p.locator("main.result .fairness").textContent();
    if (!fairness.startsWith("本局已核对")) fail(`比赛 ${name}: the result says '${fairness}'`);
    // 下一桌 waits for the next table on the same socket: a one-round tournament says it is over.
    await p.getByRole("button", { name: "下一桌", exact: true }).click();
    await p.locator("main.queue .status", { hasText: "比赛已结束" }).waitFor();
    await p.getByRole("button", { name: "返回", exact: true }).click();
    await p.locator("main.tournament").waitFor();
  }
  const [, phone] = pages[0];
  const booked = Date.now() + 30_000;
  while (!(await phone.locator("main.tournament .line", { hasText: "已完成 1 轮" }).count())) {
    if (Date.now() > booked) fail("比赛: the round was not booked");
    await phone.getByRole("button", { name: "刷新", exact: true }).click();
    await phone.waitForTimeout(200);
  }
  const rows = await phone.locator("ol.standings li").count();
  if (rows !== 4) fail(`比赛: ${rows} standings rows`);
  await phone.getByRole("button", { name: "验证牌墙", exact: true }).click();
  const verified = phone.locator("main.tournament .verified", { hasText: "全部验证通过" });
  await verified.waitFor({ timeout: 20_000 });
  await phone.screenshot({ path: `${out}/phone-tournament.png` });
  await audit(phone, "phone 比赛 standings");
  console.log(`比赛: four browsers signed up, played the round's hand by ${clicks} clicks; ${await verified.textContent()}`);
}
console.log("online: each new browser signed in with its own key, kept across reloads and a network cut");
await browser.close();
reportProblems();
