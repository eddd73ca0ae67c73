// The offline cache: every file of the face is kept at the first visit, so the installed app
// opens and plays against bots with no network. A new build names a new cache.
const CACHE = "tongcheng-__BUILD__";
self.addEventListener("install", (e) => {
  e.waitUntil(
    caches.open(CACHE).then((c) => fetch("./files.json").then((r) => r.json()).then((files) => c.addAll(files))),
  );
  self.skipWaiting();
});
self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)))));
  self.clients.claim();
});
self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  // The API and the tables are never cached.
  if (e.request.method !== "GET" || url.pathname.startsWith("/v1/") || url.pathname === "/metrics") return;
  e.respondWith(caches.match(e.request, { ignoreSearch: true }).then((hit) => hit ?? fetch(e.request)));
});
