import { describe, expect, it } from 'vitest';

describe('the markdown worker', () => {
  it('loads math once, for a block that may have some, and lets every other block through meanwhile', async () => {
    const { prepare } = await import('./markdownWorker');
    expect(prepare('plain text')).toBeNull();
    expect(prepare('```sh\necho "$f"\n```')).toBeNull();
    const loading = prepare('Area $x^2$');
    expect(loading).not.toBeNull();
    // While math loads, blocks without any are not held back by it.
    expect(prepare('more plain text')).toBeNull();
    expect(prepare('Cost $y$')).toBe(loading);
    await loading;
    expect(prepare('Area $x^2$')).toBeNull();
  });
});
