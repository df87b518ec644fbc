import { describe, expect, it, vi } from 'vitest';
import { TOKEN_STORAGE_KEY, captureTokenFromUrl, getToken } from './token';

function openAt(url: string) {
  window.history.replaceState(null, '', url);
}

describe('token from `tessera serve`', () => {
  it('moves the token from the URL fragment to sessionStorage and removes the fragment', () => {
    openAt('/#token=s3cr3t-T0ken');
    const historyLength = window.history.length;

    expect(captureTokenFromUrl()).toBe('s3cr3t-T0ken');

    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('s3cr3t-T0ken');
    expect(getToken()).toBe('s3cr3t-T0ken');
    expect(window.location.hash).toBe('');
    expect(window.location.href).not.toContain('#');
    expect(window.location.href).not.toContain('s3cr3t');
    expect(window.history.length).toBe(historyLength); // replaced, not pushed
    expect(localStorage.length).toBe(0); // never outlives the tab
  });

  it('keeps the path, the query and any other fragment parameter', () => {
    openAt('/ui/index.html?debug=1#view=settings&token=abc&x=y');
    expect(captureTokenFromUrl()).toBe('abc');
    expect(window.location.pathname).toBe('/ui/index.html');
    expect(window.location.search).toBe('?debug=1');
    expect(window.location.hash).toBe('#view=settings&x=y');
  });

  it('takes the token literally: %-escapes decoded, `+` kept', () => {
    openAt('/#token=a+b%2Fc');
    expect(captureTokenFromUrl()).toBe('a+b/c');
  });

  it('does nothing when there is no token in the URL', () => {
    const replace = vi.spyOn(window.history, 'replaceState');
    openAt('/#section=2');
    replace.mockClear();

    expect(captureTokenFromUrl()).toBeNull();
    expect(replace).not.toHaveBeenCalled();
    expect(window.location.hash).toBe('#section=2');
    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();

    openAt('/');
    expect(captureTokenFromUrl()).toBeNull();
    expect(getToken()).toBeNull();
  });

  it('keeps a token from an earlier load when the URL no longer has one (reload)', () => {
    openAt('/#token=first');
    captureTokenFromUrl();
    openAt('/');
    expect(captureTokenFromUrl()).toBeNull();
    expect(getToken()).toBe('first');
  });

  it('removes an empty token from the URL without storing anything', () => {
    openAt('/#token=');
    expect(captureTokenFromUrl()).toBeNull();
    expect(window.location.hash).toBe('');
    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
  });

  it('still clears the URL when sessionStorage refuses to store', () => {
    openAt('/#token=abc');
    const storage = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException('quota', 'QuotaExceededError');
      },
      removeItem: () => undefined,
    };
    expect(captureTokenFromUrl({ location: window.location, history: window.history, storage })).toBe('abc');
    expect(window.location.hash).toBe('');
  });
});
