// SPDX-License-Identifier: Apache-2.0
// Builds the editor into editor/dist, served by kpol under /editor/. The kpol core (grammar/,
// rules/, src/) is bundled into the worker unchanged.
import { defineConfig } from 'vite';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/editor/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 8000,
    reportCompressedSize: false,
  },
  worker: { format: 'es' },
});
