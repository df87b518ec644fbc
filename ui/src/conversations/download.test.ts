import { beforeEach, describe, expect, it, vi } from 'vitest';

const invoke = vi.fn<(...args: unknown[]) => unknown>();
vi.mock('@tauri-apps/api/core', () => ({ invoke: (...args: unknown[]) => invoke(...args), isTauri: () => false, Channel: class {} }));

const { saveExport } = await import('./download');

describe('saveExport', () => {
  beforeEach(() => invoke.mockReset());

  it('in the desktop app asks the shell’s save dialog and says where the file went', async () => {
    invoke.mockResolvedValueOnce('/home/me/Documents/Trip.md');
    await expect(saveExport('Trip.md', '# Trip', 'text/markdown', true)).resolves.toEqual({ kind: 'saved', path: '/home/me/Documents/Trip.md' });
    expect(invoke).toHaveBeenCalledWith('save_export', { suggestedName: 'Trip.md', text: '# Trip' });
  });

  it('a cancelled dialog saves nothing and says nothing', async () => {
    invoke.mockResolvedValueOnce(null);
    await expect(saveExport('Trip.md', '# Trip', 'text/markdown', true)).resolves.toBeNull();
  });

  it('in a browser it is a download', async () => {
    const created = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:x');
    await expect(saveExport('Trip.md', '# Trip', 'text/markdown', false)).resolves.toEqual({ kind: 'downloaded', name: 'Trip.md' });
    expect(invoke).not.toHaveBeenCalled();
    created.mockRestore();
  });
});
