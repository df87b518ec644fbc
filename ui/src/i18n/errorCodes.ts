import en from './locales/en';

/**
 * A run's error code the UI words: a key of `engineErrors`, whose keys are checked against the
 * codes generated from Rust (`ProviderFailureCode`, `RunErrorCode`, `ToolFailureCode`,
 * `ErrorCode`) in en.ts.
 */
export type EngineErrorCode = keyof typeof en.engineErrors;

/** An API error code the UI words: a key of `apiErrors` (checked against `ErrorCode`). */
export type WordedApiErrorCode = keyof typeof en.apiErrors;

/** Whether the UI has words for the run's error `code`; else it shows the engine's own. */
export function isEngineErrorCode(code: string): code is EngineErrorCode {
  return Object.hasOwn(en.engineErrors, code);
}

/** Whether the UI has words for the API's error `code`; else it shows the engine's own. */
export function isWordedApiErrorCode(code: string): code is WordedApiErrorCode {
  return Object.hasOwn(en.apiErrors, code);
}
