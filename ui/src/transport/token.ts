/**
 * The API token handed over by `tessera serve`.
 *
 * The server prints its address as `http://127.0.0.1:<port>/#token=<token>`. A fragment never
 * reaches a server (nor its logs), but it would stay in the address bar, the history and any
 * copied link; so at start-up the page moves the token into sessionStorage (which survives a
 * reload of this tab and nothing else) and rewrites the URL without it.
 */
import { readItem, sessionStore, writeItem, type KeyValueStore } from '../storage';

export const TOKEN_STORAGE_KEY = 'tessera.token';

export interface TokenEnvironment {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: KeyValueStore | undefined;
}

function defaultEnvironment(): TokenEnvironment {
  return { location: window.location, history: window.history, storage: sessionStore() };
}

/**
 * If the URL fragment carries `token=…`, stores it under `tessera.token` in sessionStorage and
 * removes it from the URL with `history.replaceState` (no navigation, no new history entry).
 * Other fragment parameters, if any, are kept. Returns the token found, or null.
 */
export function captureTokenFromUrl(env: TokenEnvironment = defaultEnvironment()): string | null {
  const { location, history, storage } = env;
  const hash = location.hash.startsWith('#') ? location.hash.slice(1) : location.hash;
  if (!hash) return null;

  // Split by hand rather than with URLSearchParams, which would turn a `+` into a space.
  const parts = hash.split('&');
  const index = parts.findIndex((part) => part === 'token' || part.startsWith('token='));
  if (index < 0) return null;

  const token = decodeComponent((parts[index] ?? '').slice('token='.length)).trim();
  const rest = parts.filter((part, i) => i !== index && part !== '').join('&');
  // Remove the token from the address bar even when it is empty or cannot be stored.
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);

  if (!token) return null;
  writeItem(storage, TOKEN_STORAGE_KEY, token);
  return token;
}

function decodeComponent(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // malformed %-escape: take it as written
  }
}

/** The token kept for this tab, or null (e.g. inside the desktop shell, which needs none). */
export function getToken(storage: KeyValueStore | undefined = sessionStore()): string | null {
  const token = readItem(storage, TOKEN_STORAGE_KEY);
  return token ? token : null;
}
