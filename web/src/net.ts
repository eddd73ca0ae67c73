// What only the page can do for the model's online effects: keep the device key, sign with
// it, make HTTP requests to the server it came from, and hold the table's WebSocket. The
// model decides what to ask and send, and reads every answer and frame; nothing here knows
// the protocol.
//
// The key is an Ed25519 pair made by WebCrypto with its private half not extractable, kept
// in IndexedDB (which stores CryptoKey objects as they are, so the private bytes never reach
// JavaScript). A browser without Ed25519 in WebCrypto answers with no key: online play is
// then off and the model says so.

import { getValue, openStore, putValue } from "./idb";

const DB = "tongcheng";
const STORE = "keys";
const DEVICE = "device";

let device: CryptoKeyPair | undefined;

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function unhex(s: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(s.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/// The device's public key (hex), made and kept on first use; null when this browser cannot.
export async function loadKey(): Promise<string | null> {
  try {
    const db = await openStore(DB, STORE);
    device ??= await getValue<CryptoKeyPair>(db, STORE, DEVICE);
    if (!device) {
      device = (await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"])) as CryptoKeyPair;
      await putValue(db, STORE, DEVICE, device);
    }
    return hex(await crypto.subtle.exportKey("raw", device.publicKey));
  } catch (err) {
    console.warn("no device key in this browser", err);
    return null;
  }
}

/// The device key's signature (hex) of `message` (hex).
export async function sign(message: string): Promise<string | null> {
  try {
    if (!device) return null;
    return hex(await crypto.subtle.sign({ name: "Ed25519" }, device.privateKey, unhex(message)));
  } catch {
    return null;
  }
}

export interface Request {
  id: number;
  method: string;
  path: string;
  token: string | null;
  body: unknown;
}

/// One request to the page's own server: its status and JSON body (0 and null when no
/// answer came, or when what came is not JSON — a static host's error page, say).
export async function request(r: Request): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (r.body !== null && r.body !== undefined) headers["content-type"] = "application/json";
  if (r.token) headers.authorization = `Bearer ${r.token}`;
  try {
    const answer = await fetch(r.path, {
      method: r.method,
      headers,
      body: r.body === null || r.body === undefined ? undefined : JSON.stringify(r.body),
      cache: "no-store",
    });
    const text = await answer.text();
    try {
      return { status: answer.status, body: text ? JSON.parse(text) : null };
    } catch {
      return { status: 0, body: null };
    }
  } catch {
    return { status: 0, body: null };
  }
}

export interface SocketHandlers {
  opened: (entropy: string) => void;
  frame: (text: string) => void;
  closed: () => void;
}

const sockets = new Map<number, { ws: WebSocket; closed: () => void }>();

/// Opens the table's WebSocket on the page's own origin (one node serves the face and its
/// tables). The session token goes as a subprotocol beside `tongcheng.v1`, never in the URL.
/// `opened` gets 32 bytes of the browser's secure randomness (hex) for the model's
/// contributions to the walls.
export function openSocket(id: number, path: string, token: string, on: SocketHandlers): void {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  let ws: WebSocket;
  try {
    ws = new WebSocket(url, ["tongcheng.v1", `tongcheng.token.${token}`]);
  } catch {
    setTimeout(on.closed, 0);
    return;
  }
  sockets.set(id, { ws, closed: on.closed });
  ws.onopen = () => {
    const entropy = new Uint8Array(32);
    crypto.getRandomValues(entropy);
    on.opened(hex(entropy.buffer));
  };
  ws.onmessage = (m) => {
    if (typeof m.data === "string") on.frame(m.data);
  };
  ws.onclose = () => {
    // A socket the model closed itself is not reported.
    if (sockets.delete(id)) on.closed();
  };
}

export function sendFrame(id: number, text: string): void {
  const ws = sockets.get(id)?.ws;
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(text);
}

export function closeSocket(id: number): void {
  const s = sockets.get(id);
  sockets.delete(id);
  s?.ws.close();
}

/// Every open table socket lost as a dropped network loses it (tests cut the connection
/// mid-hand with this, the way a phone losing signal would): reported closed at once, with
/// no closing handshake to wait for.
export function dropSockets(): void {
  for (const [id, s] of sockets) {
    sockets.delete(id);
    s.ws.close();
    s.closed();
  }
}
