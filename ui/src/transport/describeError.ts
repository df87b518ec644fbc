import { ApiError } from './client';

/**
 * The one way the app puts a failure into words: the engine's message, and for an API error
 * its code after it (`… (NO_MODEL)`) unless `withCode` is false (forms that say the code
 * elsewhere); anything else thrown, as text.
 */
export function describeError(error: unknown, withCode = true): string {
  if (error instanceof ApiError) return withCode ? `${error.message} (${error.code})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
