import { afterAll, beforeAll } from "vitest";

/**
 * What a test file starts in its beforeAll and stops in its afterAll, such as a platform: `fields`
 * of the started value can be read from the file's tests and from the hooks registered after this,
 * and reading them any earlier throws rather than answering undefined.
 */
export function fileScoped<T extends object>(
  fields: readonly (keyof T)[],
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
): Readonly<T> {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
  const scoped: Partial<T> = {};
  for (const field of fields) {
    Object.defineProperty(scoped, field, {
      enumerable: true,
      get: () => {
        if (started === undefined) throw new Error("it is started in the file's beforeAll");
        return started[field];
      },
    });
  }
  return scoped as T;
}
