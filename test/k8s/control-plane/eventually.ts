// SPDX-License-Identifier: Apache-2.0

/**
 * Retries `probe` until it returns a value that is not `undefined`, and returns it. The real
 * controllers act asynchronously; the deadline is a safety net against hanging, not a speed
 * assertion, so it is generous. On timeout the error says what was awaited and the last value.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      last = undefined;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last: ${last})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
