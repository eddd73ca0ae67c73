import { defineConfig } from "vite";

// Relative paths: the built face works wherever it is served (the server's `/`, a file host).
export default defineConfig({
  base: "./",
  build: { outDir: "dist", target: "es2022", assetsInlineLimit: 0 },
});
