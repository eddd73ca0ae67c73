// The shelf of finished hands (the model's JSON text) kept in IndexedDB: a browser keeps
// hundreds of MB there for a site, against localStorage's 5 MB (about a thousand hands at
// 4–5 KB each). The model owns the shelf and its queries (Rust, in the page); this only
// reads its text once when the page opens and writes it whole after each kept hand or 同步.
// A page that kept it in localStorage before moves it here on first open. Where IndexedDB
// cannot be opened (some private windows), localStorage keeps it as before.

import { getValue, openStore, putValue } from "./idb";

const DB = "tongcheng-hands";
const STORE = "shelf";
const KEY = "hands";

let opened: Promise<IDBDatabase | null> | undefined;

// The shelf's database, or null where IndexedDB cannot be opened.
function open(): Promise<IDBDatabase | null> {
  opened ??= (async () => {
    try {
      return await openStore(DB, STORE);
    } catch {
      return null;
    }
  })();
  return opened;
}

const get = (db: IDBDatabase) => getValue<string>(db, STORE, KEY);
const put = (db: IDBDatabase, text: string) => putValue(db, STORE, KEY, text);

// The kept text ("" when none); `legacy` is the localStorage key pages used before.
export async function loadShelf(legacy: string): Promise<string> {
  const db = await open();
  if (!db) return localStorage.getItem(legacy) ?? "";
  const text = await get(db).catch(() => undefined);
  if (text !== undefined) return text;
  const old = localStorage.getItem(legacy);
  if (old === null) return "";
  await put(db, old);
  localStorage.removeItem(legacy);
  return old;
}

// Keeps the text (writes go in order: each is its own transaction on the one store).
export function keepShelf(text: string, legacy: string): void {
  open()
    .then((db) => (db ? put(db, text) : localStorage.setItem(legacy, text)))
    .catch((err) => {
      // Storage full: the new hand is not kept (older ones are never dropped to make room).
      console.warn("a finished hand could not be kept", err);
    });
}
