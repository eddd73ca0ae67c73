// The browser face: draws the app model's view and sends back what is tapped. It decides
// nothing: every word, every enabled button and every rule comes from the model (Rust,
// compiled to WebAssembly). What only a page can do is here: its clocks and time zone, its
// randomness, keeping text in the browser (localStorage: settings and the kept match;
// IndexedDB: the shelf of finished hands, which the model reads and answers from inside,
// shelf.ts), sound, timers to wake
// the model, and for the online effects the device key, its signatures and the requests
// (net.ts).

import init, { WebApp } from "../pkg/tongcheng_web.js";
import { closeSocket, dropSockets, loadKey, openSocket, request, sendFrame, sign, type Request } from "./net";
import { keepShelf, loadShelf } from "./shelf";
import { tileSvg } from "./tiles";
import "./style.css";

type Tap = Record<string, unknown>;
interface Button { label: string; name: string; enabled: boolean; selected: boolean; tap: Tap }
interface TileView { code: string; name: string; wild: boolean; hidden: boolean; taken: boolean }
interface HandTile { tile: TileView; enabled: boolean; suggested: boolean; tap: Tap }
interface Seat {
  name: string; badge: string | null; wind: string; is_you: boolean; is_dealer: boolean; is_turn: boolean; score: number;
  concealed: number; melds: TileView[][]; discards: TileView[]; flowers: TileView[]; piao: string | null;
}
interface Picker { label: string; options: Button[] }
interface Result {
  heading: string; outcome: string; fans: { name: string; points: number; count: number }[];
  total: number; payments: { seat: string; delta: number; kong: number }[]; next: Button; home: Button | null;
  fairness: string | null;
}
interface HandRow { title: string; detail: string; points: string; won: boolean; open: Button }
type View =
  | {
      screen: "home"; title: string; buttons: Button[]; notice: string | null;
      online: { status: string; signed_in: boolean; ratings: string[]; retry: Button | null };
    }
  | { screen: "new_match"; title: string; pickers: Picker[]; start: Button; back: Button }
  | { screen: "settings"; title: string; pickers: Picker[]; link: Button; back: Button }
  | {
      screen: "link"; title: string; show_label: string; show_code: Button; shown: string | null;
      type_label: string; typed: string; keypad: Button[]; join: Button; notice: string | null; back: Button;
    }
  | { screen: "queue"; title: string; status: string; cancel: Button }
  | {
      screen: "room"; title: string; rules: string; people: Picker; open: Button; code_label: string; code: string;
      keypad: Button[]; join: Button; back: Button;
    }
  | {
      screen: "table"; title: string; status: string; wall_left: number; wall_label: string; seats: Seat[];
      hand: HandTile[]; drawn: HandTile | null; claim_bar: Button[]; chow_choices: Button[]; piao_choices: Button[];
      countdown_secs: number | null; auto_play: Button; hint_button: Button;
      hint: { advice: string; reason: string } | null; wild: TileView | null; back: Button;
    }
  | ({ screen: "result" } & Result)
  | {
      screen: "my_hands"; title: string; stats_rules: Picker; stats: { label: string; value: string }[];
      hands: HandRow[]; notice: string | null; previous: Button; next: Button; page_label: string; back: Button;
      sync: { title: string; status: string; refused: string[]; sync_now: Button } | null;
    }
  | { screen: "tournaments"; title: string; items: Button[]; empty: string | null; back: Button }
  | {
      screen: "tournament"; title: string; lines: string[]; standings: string[]; me: string | null;
      actions: Button[]; verified: string | null; notice: string | null; back: Button;
    }
  | {
      screen: "replay"; title: string; step_label: string; last_move: string; status: string; wall_left: number;
      wall_label: string; seats: Seat[]; hand: TileView[]; drawn: TileView | null; wild: TileView | null;
      controls: Button[]; result: Result | null; verified: string; back: Button;
    };
type Effect =
  | { effect: "keep_shelf"; json: string }
  | { effect: "keep_match"; saved: string | null }
  | { effect: "keep_settings"; settings: unknown }
  | { effect: "sound"; sound: string }
  | { effect: "wake_at"; now_ms: number }
  | { effect: "load_key" }
  | { effect: "sign"; message: string }
  | ({ effect: "request" } & Request)
  | { effect: "open_socket"; id: number; server: string; path: string; token: string }
  | { effect: "send_frame"; id: number; text: string }
  | { effect: "close_socket"; id: number };

const KEY = { settings: "tongcheng.settings", match: "tongcheng.match", hands: "tongcheng.hands" };
const root = document.getElementById("app") as HTMLElement;
let app: WebApp;
let wake: number | undefined;
let audio: AudioContext | undefined;

// Work for when the page has nothing to do (Safari has no requestIdleCallback).
const idle: (f: () => void) => void =
  (globalThis as { requestIdleCallback?: (f: () => void) => number }).requestIdleCallback?.bind(globalThis) ??
  ((f: () => void) => setTimeout(f, 50));

function now(): number {
  return Math.floor(performance.now());
}

// How long each tap took to the changed screen drawn (the model's update and the page's
// DOM), in ms: the journey test reads these for its figures. The last 2,000 are kept.
const timings: { tap: string; ms: number }[] = [];
(globalThis as unknown as { tongchengTimings: typeof timings }).tongchengTimings = timings;
// Tests cut the table's connection as a lost signal would.
(globalThis as unknown as { tongchengDropSockets: () => void }).tongchengDropSockets = dropSockets;

function send(event: object): void {
  const started = performance.now();
  const effects = JSON.parse(app.update(JSON.stringify(event), Date.now())) as Effect[];
  for (const e of effects) perform(e);
  draw();
  const tap = (event as { tap?: { tap?: string } }).tap?.tap;
  // The sound's context is made after the first tap (browsers allow audio once the person
  // has touched the page), in a task of its own: made inside a discard it cost that tap
  // about 40 ms.
  if (tap && audio === undefined) setTimeout(openAudio, 0);
  if (tap) {
    if (timings.length >= 2000) timings.shift();
    timings.push({ tap, ms: performance.now() - started });
  }
}

function perform(e: Effect): void {
  switch (e.effect) {
    case "keep_shelf":
      keepShelf(e.json, KEY.hands);
      break;
    case "keep_match":
      if (e.saved === null) localStorage.removeItem(KEY.match);
      else localStorage.setItem(KEY.match, e.saved);
      break;
    case "keep_settings":
      localStorage.setItem(KEY.settings, JSON.stringify(e.settings));
      break;
    case "sound":
      beep(e.sound);
      break;
    case "wake_at":
      if (wake !== undefined) clearTimeout(wake);
      wake = window.setTimeout(() => send({ event: "tick", now_ms: now() }), Math.max(0, e.now_ms - now()) + 5);
      break;
    // The online effects finish later; their answers come back as events.
    case "load_key":
      loadKey().then((public_key) => send({ event: "key_loaded", public_key }));
      break;
    case "sign":
      sign(e.message).then((signature) => send({ event: "signed", signature }));
      break;
    case "request":
      request(e).then((a) => send({ event: "answered", id: e.id, status: a.status, body: a.body }));
      break;
    case "open_socket":
      openSocket(e.id, e.path, e.token, {
        opened: (entropy) => send({ event: "socket_opened", id: e.id, entropy }),
        frame: (text) => send({ event: "frame", id: e.id, text }),
        // The model's clock first: its wait before reconnecting counts from the loss.
        closed: () => {
          send({ event: "tick", now_ms: now() });
          send({ event: "socket_closed", id: e.id });
        },
      });
      break;
    case "send_frame":
      sendFrame(e.id, e.text);
      break;
    case "close_socket":
      closeSocket(e.id);
      break;
  }
}

function openAudio(): AudioContext | undefined {
  try {
    audio ??= new AudioContext();
  } catch {
    // No audio here: the game goes on silently.
  }
  return audio;
}

function beep(kind: string): void {
  const ctx = openAudio();
  if (!ctx) return;
  try {
    const o = ctx.createOscillator();
    const g = ctx.createGain();
    o.frequency.value = kind === "win" ? 880 : kind === "claim" ? 660 : 440;
    g.gain.value = 0.05;
    o.connect(g).connect(ctx.destination);
    o.start();
    o.stop(ctx.currentTime + 0.08);
  } catch {
    // No audio here: the game goes on silently.
  }
}

function el(tag: string, cls?: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(b: Button, cls = "btn"): HTMLButtonElement {
  const e = el("button", cls + (b.selected ? " selected" : ""), b.label) as HTMLButtonElement;
  e.setAttribute("aria-label", b.name);
  if (b.selected) e.setAttribute("aria-pressed", "true");
  e.disabled = !b.enabled;
  e.onclick = () => send({ event: "tap", tap: b.tap });
  return e;
}

function tileImage(t: TileView, cls = "tile"): HTMLElement {
  const e = el("span", cls);
  e.setAttribute("role", "img");
  e.setAttribute("aria-label", t.name);
  e.innerHTML = tileSvg(t.code, t);
  return e;
}

function handTile(h: HandTile, drawn: boolean): HTMLButtonElement {
  const e = el("button", "tile hand" + (drawn ? " drawn" : "") + (h.suggested ? " suggested" : "")) as HTMLButtonElement;
  e.disabled = !h.enabled;
  e.innerHTML = tileSvg(h.tile.code, h.tile);
  // Named by its text, not aria-label: the art's own characters (萬) are not the name (万).
  e.append(el("span", "sr-only", h.tile.name));
  e.onclick = () => send({ event: "tap", tap: h.tap });
  return e;
}

function pickers(list: Picker[]): HTMLElement {
  const box = el("div", "pickers");
  for (const p of list) {
    const row = el("fieldset", "picker");
    row.append(el("legend", "", p.label));
    for (const o of p.options) row.append(button(o, "chip"));
    box.append(row);
  }
  return box;
}

function seatBox(s: Seat, place: string): HTMLElement {
  const box = el("section", `seat ${place}` + (s.is_turn ? " turn" : ""));
  box.setAttribute("aria-label", s.name);
  const head = el("header", "seat-head");
  head.append(el("span", "seat-name", s.name), el("span", "seat-score", String(s.score)));
  if (s.badge) head.append(el("span", "badge", s.badge));
  if (s.piao !== null) head.append(el("span", "badge piao", s.piao));
  box.append(head);
  const melds = el("div", "melds");
  for (const m of s.melds) {
    const g = el("span", "meld");
    for (const t of m) g.append(tileImage(t, "tile small"));
    melds.append(g);
  }
  for (const f of s.flowers) melds.append(tileImage(f, "tile small"));
  box.append(melds);
  const pond = el("div", "discards");
  for (const d of s.discards) pond.append(tileImage(d, "tile small"));
  box.append(pond);
  return box;
}

interface Felt { title: string; back: Button; wall_label: string; wall_left: number; wild: TileView | null; seats: Seat[]; status: string }

// The bar and the felt with four seats: the table and the replay share them.
function drawFelt(page: HTMLElement, v: Felt, countdown: number | null): void {
  const top = el("header", "bar");
  top.append(button(v.back, "btn ghost"), el("h1", "title", v.title));
  const info = el("div", "info");
  info.append(el("span", "", `${v.wall_label} ${v.wall_left}`));
  if (v.wild) {
    const w = el("span", "wild");
    w.append(tileImage(v.wild, "tile small"));
    info.append(w);
  }
  if (countdown !== null) info.append(el("span", "countdown", String(countdown)));
  top.append(info);
  page.append(top);
  const felt = el("div", "felt");
  const places = ["me", "right", "across", "left"];
  v.seats.forEach((s, i) => felt.append(seatBox(s, places[i])));
  felt.append(el("div", "status", v.status));
  page.append(felt);
}

function drawTable(v: Extract<View, { screen: "table" }>): HTMLElement {
  const page = el("main", "table");
  drawFelt(page, v, v.countdown_secs);
  if (v.hint) {
    const h = el("aside", "hint");
    h.append(el("strong", "", v.hint.advice), el("p", "", v.hint.reason));
    page.append(h);
  }
  const bar = el("div", "claims");
  for (const b of v.claim_bar) bar.append(button(b, "btn claim"));
  page.append(bar);
  for (const list of [v.piao_choices, v.chow_choices]) {
    if (!list.length) continue;
    const c = el("div", "choices");
    for (const b of list) c.append(button(b, "btn chip"));
    page.append(c);
  }
  const hand = el("div", "hand-row");
  for (const h of v.hand) hand.append(handTile(h, false));
  if (v.drawn) hand.append(handTile(v.drawn, true));
  page.append(hand);
  const tools = el("div", "tools");
  tools.append(button(v.hint_button, "btn ghost"), button(v.auto_play, "btn ghost"));
  page.append(tools);
  // The hint of the player's decision is worked out while the page is idle, so 提示 shows it
  // at once (nothing on screen changes, so nothing is drawn).
  if (v.hint_button.enabled && !v.hint) idle(() => app.update(JSON.stringify({ event: "idle" }), Date.now()));
  return page;
}

function drawResult(page: HTMLElement, v: Result, heading: "h1" | "h2"): void {
  page.append(el(heading, "title", v.heading), el("p", "outcome", v.outcome));
  if (v.fairness) page.append(el("p", "fairness", v.fairness));
  if (v.fans.length) {
    const fans = el("ul", "fans");
    for (const f of v.fans) {
      const li = el("li");
      li.append(el("span", "", f.name + (f.count > 1 ? ` ×${f.count}` : "")), el("span", "pts", String(f.points * f.count)));
      fans.append(li);
    }
    page.append(fans, el("p", "total", String(v.total)));
  }
  const pay = el("table", "payments");
  for (const p of v.payments) {
    const tr = el("tr");
    tr.append(el("th", "", p.seat), el("td", p.delta > 0 ? "up" : p.delta < 0 ? "down" : "", (p.delta > 0 ? "+" : "") + p.delta));
    pay.append(tr);
  }
  page.append(pay);
  const actions = el("div", "actions");
  actions.append(button(v.next, "btn big"));
  if (v.home) actions.append(button(v.home, "btn ghost"));
  page.append(actions);
}

// 好友房: open a room (its rules and people), or type a friend's code on the keypad (the
// keyboard's digits and Backspace press the same buttons).
function drawRoom(v: Extract<View, { screen: "room" }>): HTMLElement {
  const page = el("main", "form room");
  const top = el("header", "bar");
  top.append(button(v.back, "btn ghost"), el("h1", "title", v.title));
  page.append(top);
  const open = el("section", "open-room");
  open.append(el("p", "rules", v.rules), pickers([v.people]), button(v.open, "btn big"));
  page.append(open);
  page.append(codeEntry(el("h2", "", v.code_label), v.code_label, v.code || "······", v.keypad, v.join, "keypad"));
  return page;
}

// A code typed on the model's keypad: what it says, the code so far, the keys and the button
// that sends it.
function codeEntry(heading: HTMLElement, label: string, typed: string, keypad: Button[], send: Button, keysClass: string): HTMLElement {
  const join = el("section", "join-room");
  const code = el("output", "code", typed);
  code.setAttribute("aria-label", label);
  join.append(heading, code);
  const keys = el("div", keysClass);
  for (const b of keypad) keys.append(button(b, "btn key"));
  join.append(keys, button(send, "btn big"));
  return join;
}

// 关联设备: show a code for the other device, or type its code on the code's own keypad.
function drawLink(v: Extract<View, { screen: "link" }>): HTMLElement {
  const page = el("main", "form room link");
  const top = el("header", "bar");
  top.append(button(v.back, "btn ghost"), el("h1", "title", v.title));
  page.append(top);
  const show = el("section", "open-room");
  show.append(el("p", "rules", v.show_label), button(v.show_code, "btn big"));
  if (v.shown) show.append(el("output", "code shown", v.shown));
  page.append(show);
  page.append(codeEntry(el("p", "rules", v.type_label), v.type_label, v.typed || "····-····", v.keypad, v.join, "keypad letters"));
  if (v.notice) page.append(el("p", "notice", v.notice));
  return page;
}

document.addEventListener("keydown", (e) => {
  if (!document.querySelector("main.room")) return;
  const label = e.key === "Backspace" ? null : e.key.toUpperCase();
  const keys = Array.from(document.querySelectorAll<HTMLButtonElement>(".keypad button"));
  const key = label === null ? keys[keys.length - 1] : keys.find((k) => k.textContent === label);
  if (key && !key.disabled) {
    e.preventDefault();
    key.click();
  }
});

// 比赛: the tournaments as a list of buttons (each named by the tournament), then one: its
// state, the standings with one's own place, 报名 / 下一桌, 验证牌墙.
function drawTournaments(v: Extract<View, { screen: "tournaments" }>): HTMLElement {
  const page = el("main", "form tournaments");
  const top = el("header", "bar");
  top.append(button(v.back, "btn ghost"), el("h1", "title", v.title));
  page.append(top);
  if (v.empty) page.append(el("p", "notice", v.empty));
  const list = el("nav", "menu");
  for (const b of v.items) list.append(button(b, "btn big item"));
  page.append(list);
  return page;
}

function drawTournament(v: Extract<View, { screen: "tournament" }>): HTMLElement {
  const page = el("main", "form tournament");
  const top = el("header", "bar");
  top.append(button(v.back, "btn ghost"), el("h1", "title", v.title));
  page.append(top);
  for (const l of v.lines) page.append(el("p", "line", l));
  if (v.me) page.append(el("p", "me", v.me));
  if (v.standings.length) {
    const list = el("ol", "standings");
    list.setAttribute("aria-label", "standings");
    for (const r of v.standings) list.append(el("li", "", r));
    page.append(list);
  }
  const actions = el("div", "actions");
  for (const b of v.actions) actions.append(button(b, "btn big"));
  page.append(actions);
  if (v.verified) page.append(el("p", "verified", v.verified));
  if (v.notice) page.append(el("p", "notice", v.notice));
  return page;
}

function drawMyHands(v: Extract<View, { screen: "my_hands" }>): HTMLElement {
  const page = el("main", "form hands");
  const top = el("header", "bar");
  top.append(button(v.back, "btn ghost"), el("h1", "title", v.title));
  page.append(top, pickers([v.stats_rules]));
  if (v.stats.length) {
    const dl = el("dl", "stats");
    for (const f of v.stats) {
      const d = el("div");
      d.append(el("dt", "", f.label), el("dd", "", f.value));
      dl.append(d);
    }
    page.append(dl);
  }
  if (v.sync) {
    const sync = el("section", "sync");
    const head = el("div", "sync-head");
    head.append(el("h2", "", v.sync.title), button(v.sync.sync_now, "btn chip"));
    sync.append(head, el("p", "sync-status", v.sync.status));
    for (const r of v.sync.refused) sync.append(el("p", "refused", r));
    page.append(sync);
  }
  if (v.notice) page.append(el("p", "notice", v.notice));
  const list = el("ol", "hand-list");
  for (const h of v.hands) {
    const li = el("li", h.won ? "won" : "");
    const text = el("div", "hand-text");
    text.append(el("strong", "", h.title), el("span", "detail", h.detail));
    li.append(text, el("span", "pts " + (h.points.startsWith("+") ? "up" : h.points.startsWith("-") ? "down" : ""), h.points), button(h.open, "btn chip"));
    list.append(li);
  }
  page.append(list);
  const pager = el("div", "pager");
  pager.append(button(v.previous, "btn ghost"), el("span", "", v.page_label), button(v.next, "btn ghost"));
  page.append(pager);
  return page;
}

function drawReplay(v: Extract<View, { screen: "replay" }>): HTMLElement {
  const page = el("main", "table replay");
  drawFelt(page, v, null);
  const steps = el("div", "steps");
  steps.append(el("span", "step", v.step_label), el("span", "move", v.last_move));
  page.append(steps);
  const hand = el("div", "hand-row");
  for (const t of v.hand) hand.append(tileImage(t, "tile hand"));
  if (v.drawn) hand.append(tileImage(v.drawn, "tile hand drawn"));
  page.append(hand);
  const controls = el("div", "controls");
  for (const b of v.controls) controls.append(button(b, "btn"));
  page.append(controls);
  if (v.result) {
    const r = el("section", "result inline");
    drawResult(r, v.result, "h2");
    page.append(r);
  }
  page.append(el("p", "verified", v.verified));
  return page;
}

function draw(): void {
  const v = JSON.parse(app.view()) as View;
  document.documentElement.lang = app.lang();
  root.replaceChildren();
  switch (v.screen) {
    case "home": {
      const page = el("main", "home");
      page.append(el("h1", "logo", v.title));
      const list = el("nav", "menu");
      for (const b of v.buttons) list.append(button(b, "btn big"));
      page.append(list);
      if (v.notice) page.append(el("p", "notice", v.notice));
      const account = el("section", "account" + (v.online.signed_in ? " in" : ""));
      account.setAttribute("aria-label", "account");
      account.append(el("p", "status", v.online.status));
      for (const r of v.online.ratings) account.append(el("p", "rating", r));
      if (v.online.retry) account.append(button(v.online.retry, "btn ghost"));
      page.append(account);
      root.append(page);
      break;
    }
    case "new_match":
    case "settings": {
      const page = el("main", "form");
      page.append(el("h1", "title", v.title), pickers(v.pickers));
      const actions = el("div", "actions");
      if (v.screen === "new_match") actions.append(button(v.start, "btn big"));
      else actions.append(button(v.link, "btn"));
      actions.append(button(v.back, "btn ghost"));
      page.append(actions);
      root.append(page);
      break;
    }
    case "queue": {
      const page = el("main", "form queue");
      page.append(el("h1", "title", v.title), el("p", "status", v.status));
      const actions = el("div", "actions");
      actions.append(button(v.cancel, "btn ghost"));
      page.append(actions);
      root.append(page);
      break;
    }
    case "room":
      root.append(drawRoom(v));
      break;
    case "link":
      root.append(drawLink(v));
      break;
    case "table":
      root.append(drawTable(v));
      break;
    case "result": {
      const page = el("main", "result");
      drawResult(page, v, "h1");
      root.append(page);
      break;
    }
    case "my_hands":
      root.append(drawMyHands(v));
      break;
    case "tournaments":
      root.append(drawTournaments(v));
      break;
    case "tournament":
      root.append(drawTournament(v));
      break;
    case "replay":
      root.append(drawReplay(v));
      break;
  }
}

async function main(): Promise<void> {
  const [, hands] = await Promise.all([init(), loadShelf(KEY.hands)]);
  const seed = new Uint32Array(2);
  crypto.getRandomValues(seed);
  const settings = localStorage.getItem(KEY.settings) ?? "";
  app = new WebApp(
    settings,
    localStorage.getItem(KEY.match) ?? "",
    hands,
    seed[0],
    seed[1],
    now(),
    -new Date().getTimezoneOffset(),
  );
  draw();
  // The engine's tables are built while the player looks at the first screen, not on his
  // first tap or hint.
  idle(() => app.prepare());
  // Login starts when the network is there; offline play never waits for it.
  send({ event: "network", up: navigator.onLine });
  window.addEventListener("online", () => send({ event: "network", up: true }));
  window.addEventListener("offline", () => send({ event: "network", up: false }));
  // The countdown redraws each second on the table; the model's own wake-ups play timeouts.
  setInterval(() => {
    if (document.querySelector(".countdown")) send({ event: "tick", now_ms: now() });
  }, 1000);
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("./sw.js").catch(() => undefined);
}

main();
