// The shelf of finished hands (the model's JSON text) kept in IndexedDB: a browser keeps
// hundreds of MB there for a site, against localStorage's 5 MB (about a thousand hands at
// 4–5 KB each). The model owns the shelf and its queries (Rust, in the page); this only
// reads its text once when the page opens and writes it whole after each kept hand or 同步.
// A page that kept it in localStorage before moves it here on first open. Where IndexedDB
// cannot be opened (some private windows), localStorage keeps it as before.

const DB = "tongcheng-hands";
const STORE = "shelf";
const KEY = "hands";

let opened: Promise<IDBDatabase | null> | undefined;

function open(): Promise<IDBDatabase | null> {
  opened ??= new Promise((resolve) => {
    try {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  return opened;
}

function get(db: IDBDatabase): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = db.transaction(STORE).objectStore(STORE).get(KEY);
    req.onsuccess = () => resolve(req.result as string | undefined);
    req.onerror = () => reject(req.error);
  });
}

function put(db: IDBDatabase, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, "readwrite");
    tx.objectStore(STORE).put(text, KEY);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

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
