// SPDX-License-Identifier: Apache-2.0
// Vite's `?worker` imports: the default export constructs the bundled worker.
declare module '*?worker' {
  const WorkerConstructor: { new (): Worker };
  export default WorkerConstructor;
}
declare module '*.css';
