import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import { bundleSizeReport } from "./bundle-size-report.ts";

const studioRoot = fileURLToPath(new URL(".", import.meta.url));

/**
 * Studio's build: served by the platform under `/studio/`, into the server package so that
 * `npm start` needs no build step. `WEFT_STUDIO_OUT_DIR` lets the build check write elsewhere.
 */
export default defineConfig({
  root: studioRoot,
  base: "/studio/",
  logLevel: "info",
  plugins: [bundleSizeReport()],
  build: {
    outDir: process.env.WEFT_STUDIO_OUT_DIR ?? fileURLToPath(new URL("../server/studio-dist", import.meta.url)),
    emptyOutDir: true,
    assetsDir: "assets",
    // The strict CSP (script-src 'self') forbids inline scripts; a separate preload file keeps it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    sourcemap: false,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React Query marks its hooks "use client" for server components, which a browser bundle has not.
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
});
