import { act, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import { preloadable } from './pages';

function Part() {
  return <p>the part</p>;
}

describe('a lazily loaded part of the UI', () => {
  it('is drawn in the first render once preloaded: no fallback, so no held-back reveal', async () => {
    const part = preloadable(() => Promise.resolve({ default: Part }));
    await part.preload();
    const { container } = render(
      <Suspense fallback={<p>loading</p>}>
        <part.component />
      </Suspense>,
    );
    expect(container.textContent).toBe('the part');
  });

  it('shows the fallback while a part not preloaded loads, then the part', async () => {
    let loaded!: (module: { default: typeof Part }) => void;
    const part = preloadable(() => new Promise<{ default: typeof Part }>((resolve) => (loaded = resolve)));
    const { container } = render(
      <Suspense fallback={<p>loading</p>}>
        <part.component />
      </Suspense>,
    );
    expect(container.textContent).toBe('loading');
    await act(() => {
      loaded({ default: Part });
      return Promise.resolve();
    });
    expect(await screen.findByText('the part')).toBeTruthy();
  });

  it('loads its chunk once however often it is preloaded, and again after a failure', async () => {
    let calls = 0;
    const part = preloadable(() => {
      calls += 1;
      return calls === 1 ? Promise.reject(new Error('offline')) : Promise.resolve({ default: Part });
    });
    await expect(part.preload()).rejects.toThrow('offline');
    await part.preload();
    await part.preload();
    expect(calls).toBe(2);
  });
});
