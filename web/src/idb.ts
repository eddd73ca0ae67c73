// One IndexedDB database with one object store, as the page uses it twice (the device key in
// net.ts, the shelf of hands in shelf.ts): open it, get a value, put one.

export function openStore(db: string, store: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(db, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(store);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

export function getValue<T>(db: IDBDatabase, store: string, key: string): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const get = db.transaction(store).objectStore(store).get(key);
    get.onsuccess = () => resolve(get.result as T | undefined);
    get.onerror = () => reject(get.error);
  });
}

// Resolves once the write is committed.
export function putValue(db: IDBDatabase, store: string, key: string, value: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, "readwrite");
    tx.objectStore(store).put(value, key);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}
