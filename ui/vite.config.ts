/// <reference types="vitest/config" />
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The Content-Security-Policy of the built page. No 'unsafe-eval' and no inline scripts
 * (docs/design.md). connect-src also allows Tauri 2's IPC endpoints so the same build runs inside
 * the desktop shell. Only added to the production build: the dev server injects inline
 * scripts for hot reload.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self' ipc: http://ipc.localhost",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function contentSecurityPolicy(): Plugin {
  return {
    name: 'tessera-csp',
    apply: 'build',
    transformIndexHtml: {
      order: 'pre',
      handler(html) {
        const charset = '<meta charset="UTF-8" />';
        if (!html.includes(charset)) throw new Error('index.html: expected <meta charset="UTF-8" /> first in <head>');
        // Right after the charset, before anything the policy governs.
        return html.replace(charset, `${charset}\n    <meta http-equiv="Content-Security-Policy" content="${CSP}" />`);
      },
    },
  };
}

/**
 * For the page's workers (src/chat/components/markdownWorker.ts): a package that exports a
 * `worker` build is taken from it. Vite resolves a worker's imports as the page's, with the
 * `browser` condition, and some packages' browser builds use the DOM, which a worker does not
 * have (hast-util-from-html-isomorphic's DOMParser, decode-named-character-reference's
 * `document`): their `worker` builds are the DOM-free ones. (The dev server does not bundle
 * workers, so there the worker fails to start and the page parses Markdown itself.)
 */
function workerConditions(): Plugin {
  const BARE = /^(?:@[^/]+\/)?[^./@][^/]*$/;
  return {
    name: 'tessera-worker-conditions',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!BARE.test(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved || resolved.external) return null;
      const marker = `${path.sep}node_modules${path.sep}${source.split('/').join(path.sep)}${path.sep}`;
      const at = resolved.id.lastIndexOf(marker);
      if (at < 0) return null;
      const root = resolved.id.slice(0, at + marker.length);
      const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
      const exports = manifest.exports;
      // `exports` maps subpaths ('.', './x') to conditions, or is the conditions of '.' itself.
      const main = exports && Object.keys(exports).some((key) => key.startsWith('.')) ? exports['.'] : exports;
      const worker = main && typeof main === 'object' ? (main as Record<string, unknown>)['worker'] : undefined;
      return typeof worker === 'string' ? path.join(root, worker) : null;
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the same build loads from Tauri's custom protocol and from
  // `tessera serve` (any port, any mount point).
  base: './',
  plugins: [react(), contentSecurityPolicy()],
  // The port the Tauri shell's `devUrl` points at.
  server: { port: 5173, strictPort: true },
  worker: {
    plugins: () => [workerConditions()],
    // ES modules: the worker loads math as a chunk of its own, when a block first needs it.
    format: 'es',
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
