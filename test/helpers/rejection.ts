import { expect } from 'vitest';

/** The error `promise` rejects with, checked to be a `type`, so a test can read its code and wording. */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}
