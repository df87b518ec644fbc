import { afterEach, describe, expect, it, vi } from 'vitest';

/** A Worker that records how it was made and can fail to load. */
class FakeWorker {
  static made: FakeWorker[] = [];
  terminated = false;
  private readonly listeners: (() => void)[] = [];
  constructor(
    readonly url: URL,
    readonly options: WorkerOptions,
  ) {
    FakeWorker.made.push(this);
  }
  addEventListener(type: string, listener: () => void) {
    if (type === 'error') this.listeners.push(listener);
  }
  failToLoad() {
    for (const listener of this.listeners) listener();
  }
  terminate() {
    this.terminated = true;
  }
}

/** The module afresh, with the fake as the global Worker. */
async function load() {
  vi.resetModules();
  FakeWorker.made = [];
  vi.stubGlobal('Worker', FakeWorker);
  return import('./markdownWorkerStart');
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('starting the markdown worker ahead of need', () => {
  it('hands the pane the worker started when the person showed intent, and starts no second one', async () => {
    const start = await load();
    start.prestartMarkdownWorker();
    start.prestartMarkdownWorker();
    expect(FakeWorker.made).toHaveLength(1);
    const worker = start.takeMarkdownWorker() as unknown as FakeWorker;
    expect(worker).toBe(FakeWorker.made[0]);
    expect(worker.options).toEqual({ type: 'module', name: 'markdown' });
    expect(String(worker.url)).toContain('markdownWorker');
    // Once the pane has its worker, intent starts nothing more.
    start.prestartMarkdownWorker();
    expect(FakeWorker.made).toHaveLength(1);
  });

  it('starts one when the pane asks first', async () => {
    const start = await load();
    const worker = start.takeMarkdownWorker();
    expect(worker).toBe(FakeWorker.made[0]);
  });

  it('tells the pane there is no worker when the one started ahead failed to load, so it parses on the page at once', async () => {
    const start = await load();
    start.prestartMarkdownWorker();
    FakeWorker.made[0]?.failToLoad();
    expect(start.takeMarkdownWorker()).toBeNull();
    expect(FakeWorker.made[0]?.terminated).toBe(true);
  });

  it('starts nothing where the page has no Worker', async () => {
    vi.resetModules();
    vi.stubGlobal('Worker', undefined);
    const start = await import('./markdownWorkerStart');
    start.prestartMarkdownWorker();
    expect(start.takeMarkdownWorker()).toBeNull();
  });
});
