// SPDX-License-Identifier: Apache-2.0
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 30000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/k8s/**', 'test/editor/**', '**/node_modules/**'],
        },
      },
      // Browser tests: Chromium and a fresh editor build are prepared once, by the global setup.
      {
        extends: true,
        test: {
          name: 'editor',
          include: ['test/editor/**/*.test.ts'],
          globalSetup: ['test/editor/global-setup.ts'],
          testTimeout: 60000,
          hookTimeout: 120000,
        },
      },
      {
        // Against a real control plane (test/k8s/control-plane/README.md): one shared by every
        // file, started only when a file of this project is selected; files run one at a time.
        // groupOrder 1: after unit and editor (0), as vitest does anyway with a one-at-a-time
        // project of the default order; explicit so that `karpenter` (2) can come after it.
        extends: true,
        test: {
          name: 'k8s',
          include: ['test/k8s/**/*.test.ts'],
          exclude: ['test/k8s/karpenter/**', '**/node_modules/**'],
          globalSetup: ['test/k8s/control-plane/global-setup.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          testTimeout: 120000,
          hookTimeout: 120000,
        },
      },
      {
        // Against the real Karpenter (test/k8s/karpenter/README.md): its own control plane plus
        // Karpenter's KWOK provider and KWOK, shared by the project's files, which run one at a
        // time. groupOrder 2: after every other project has finished, so its tests never share
        // the 2 cores with the k8s project's. vitest still runs every selected project's
        // globalSetup before the first test, so these servers start first and idle until then.
        extends: true,
        test: {
          name: 'karpenter',
          include: ['test/k8s/karpenter/**/*.test.ts'],
          globalSetup: ['test/k8s/karpenter/global-setup.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
          testTimeout: 300000,
          hookTimeout: 300000,
        },
      },
    ],
  },
});
