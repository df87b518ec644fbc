import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LocalModelsView } from '../generated/LocalModelsView';
import type { DownloadView } from '../generated/DownloadView';
import { createI18n } from '../i18n';
import { SettingsApi } from '../settings/api';
import { fakeEngine } from '../test/fakeEngine';
import { LocalModelsSection } from './LocalModelsSection';

// The desktop shell as its webview has it: Tauri's marker and its command bridge (the open
// dialog answers through it).
const invoke = vi.fn<(command: string, args: unknown) => Promise<unknown>>();
type TauriWindow = { isTauri?: boolean; __TAURI_INTERNALS__?: { invoke: typeof invoke } };
const inDesktop = () => {
  Object.assign(window as unknown as TauriWindow, { isTauri: true, __TAURI_INTERNALS__: { invoke } });
};

const FILE = 'Qwen2.5-7B-Instruct-Q4_K_M.gguf';

function listing(over: Partial<LocalModelsView> = {}): LocalModelsView {
  return {
    catalogue: [],
    files: [],
    downloads: [],
    folder: '/home/p/.local/share/tessera/models',
    used_bytes: 0,
    free_bytes: 50_000_000_000,
    hub: 'https://huggingface.co',
    hub_address: null,
    hub_proxy: null,
    worker_program: '/usr/bin/tessera-llama',
    worker_found: true,
    worker: { state: 'not_running' },
    default_file: null,
    context_tokens: null,
    ...over,
  };
}

const download = (over: Partial<DownloadView> = {}): DownloadView => ({
  file: FILE,
  model: 'qwen2.5-7b-instruct',
  phase: 'downloading',
  done: 2_100_000_000,
  total: 4_680_000_000,
  bytes_per_second: 20_000_000,
  seconds_left: 120,
  problem: null,
  failure: null,
  use_when_done: false,
  ...over,
});

/** What the engine says when the hub's name does not resolve. */
const unreachable = download({
  phase: 'failed',
  bytes_per_second: 0,
  seconds_left: null,
  problem: 'cannot reach the model hub at https://huggingface.co/…: dns error: failed to lookup address information',
  failure: { code: 'hub_unreachable', hub: 'https://huggingface.co', proxy: null, status: null, needed_bytes: null, free_bytes: null },
});

function renderSection(routes: Parameters<typeof fakeEngine>[0], language = 'en') {
  const i18n = createI18n();
  void i18n.changeLanguage(language);
  const { client, requests } = fakeEngine(routes);
  const user = userEvent.setup();
  render(
    <I18nextProvider i18n={i18n}>
      <LocalModelsSection api={SettingsApi.of(client)} />
    </I18nextProvider>,
  );
  return { user, requests };
}

beforeEach(() => invoke.mockReset());
afterEach(() => {
  delete (window as unknown as TauriWindow).isTauri;
  delete (window as unknown as TauriWindow).__TAURI_INTERNALS__;
});

describe('a hub that cannot be reached', () => {
  it('is said in plain words, and leads to a mirror and a proxy that are saved', async () => {
    let view = listing({ downloads: [unreachable] });
    const { user, requests } = renderSection({
      'GET /v1/local-models': () => Response.json(view),
      'PUT /v1/settings/model_hub_address': (request) => {
        const value = (request.body as { value: string }).value;
        view = { ...view, hub: value, hub_address: value };
        return Response.json({ settings: { model_hub_address: value, model_hub_proxy: null }, spent_today_usd: 0 });
      },
    });
    const failed = await screen.findByTestId('local-download');
    const problem = within(failed).getByTestId('local-download-problem');
    expect(problem).toHaveTextContent(
      'Tessera could not reach the model hub at https://huggingface.co. Your network may block it: a mirror or a proxy may get through. What was downloaded is kept.',
    );
    expect(problem).not.toHaveTextContent('dns error');

    await user.click(within(failed).getByRole('button', { name: 'Use a mirror or proxy' }));
    const hub = screen.getByRole('region', { name: 'Where models download from' });
    const address = within(hub).getByLabelText('Hub address (a mirror)');
    expect(address).toHaveFocus();

    // A mistake is said beside the field, before anything is sent.
    await user.type(address, 'hf-mirror.com');
    await user.click(within(hub).getByRole('button', { name: 'Save download settings' }));
    expect(within(hub).getByText('“hf-mirror.com” is not a web address: write it like https://hf-mirror.com.')).toBeInTheDocument();
    expect(requests.some((r) => r.method === 'PUT')).toBe(false);

    await user.clear(address);
    await user.type(address, 'https://hf-mirror.com');
    await user.type(within(hub).getByLabelText('Proxy for downloads'), 'socks5://127.0.0.1:1080');
    await user.click(within(hub).getByRole('button', { name: 'Save download settings' }));
    expect(within(hub).getByText('The proxy starts with socks5: use an http:// or https:// proxy (SOCKS proxies are not supported).')).toBeInTheDocument();
    await user.clear(within(hub).getByLabelText('Proxy for downloads'));
    await user.click(within(hub).getByRole('button', { name: 'Save download settings' }));
    expect(await within(hub).findByRole('status')).toHaveTextContent('Saved: models download from https://hf-mirror.com.');
    expect(requests.filter((r) => r.method === 'PUT').map((r) => [r.path, r.body])).toEqual([['/v1/settings/model_hub_address', { value: 'https://hf-mirror.com' }]]);
    await waitFor(() => expect(within(hub).getByText('Models download from https://hf-mirror.com. Where that cannot be reached, use a mirror or a proxy.')).toBeInTheDocument());
  });

  it('is said in Chinese, with the way out in Chinese too', async () => {
    renderSection(
      {
        'GET /v1/local-models': () =>
          Response.json(listing({ downloads: [{ ...unreachable, failure: { ...unreachable.failure!, proxy: 'http://127.0.0.1:7890' } }] })),
      },
      'zh-CN',
    );
    const failed = await screen.findByTestId('local-download');
    expect(within(failed).getByTestId('local-download-problem')).toHaveTextContent(
      'Tessera 无法连接到模型仓库 https://huggingface.co（经由代理 http://127.0.0.1:7890）。你的网络可能屏蔽了它：使用镜像或代理也许可以连上。已下载的部分会保留。',
    );
    expect(within(failed).getByRole('button', { name: '使用镜像或代理' })).toBeInTheDocument();
    expect(within(failed).getByRole('button', { name: '重试' })).toBeInTheDocument();
  });
});

describe('cancelling a download', () => {
  it('asks first, and keeps what was downloaded for the next download to go on from', async () => {
    let view = listing({ downloads: [download()] });
    const { user, requests } = renderSection({
      'GET /v1/local-models': () => Response.json(view),
      [`DELETE /v1/local-models/downloads/${FILE}?keep_partial=true`]: () => {
        view = listing({ files: [{ file: FILE, bytes: 2_100_000_000, partial: true, catalogue_id: 'qwen2.5-7b-instruct', default: false }] });
        return Response.json({ file: FILE, freed_bytes: 0, kept_bytes: 2_100_000_000 });
      },
    });
    const going = await screen.findByTestId('local-download');
    await user.click(within(going).getByRole('button', { name: 'Cancel download' }));
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);
    const ask = within(going).getByRole('group', { name: `Stop the download of ${FILE}?` });
    expect(ask).toHaveTextContent('Stop this download? The 2.1 GB downloaded so far can stay on this computer, so that downloading it again goes on from there.');
    expect(within(ask).getByRole('button', { name: 'Stop and delete (2.1 GB)' })).toBeInTheDocument();
    await user.click(within(ask).getByRole('button', { name: 'Stop, keep what was downloaded' }));
    expect(
      await screen.findByText(`The download of ${FILE} stopped. What was downloaded is kept: downloading it again goes on from there, or delete it under “On this computer”.`),
    ).toBeInTheDocument();
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([`/v1/local-models/downloads/${FILE}?keep_partial=true`]);
    // The part stays listed, to resume or to delete.
    const kept = await waitFor(() => {
      const row = document.querySelector(`.local-file[data-file="${FILE}"]`);
      expect(row).not.toBeNull();
      return row as HTMLElement;
    });
    expect(kept).toHaveTextContent('Part downloaded');
    expect(within(kept).getByRole('button', { name: 'Resume' })).toBeInTheDocument();
    expect(within(kept).getByRole('button', { name: 'Delete…' })).toBeInTheDocument();
  });

  it('deletes what was downloaded only when asked to, and going on changes nothing', async () => {
    const { user, requests } = renderSection(
      {
        'GET /v1/local-models': () => Response.json(listing({ downloads: [download()] })),
        [`DELETE /v1/local-models/downloads/${FILE}`]: () => Response.json({ file: FILE, freed_bytes: 2_100_000_000, kept_bytes: 0 }),
      },
      'zh-CN',
    );
    const going = await screen.findByTestId('local-download');
    await user.click(within(going).getByRole('button', { name: '取消下载' }));
    await user.click(within(going).getByRole('button', { name: '继续下载' }));
    expect(within(going).queryByRole('group')).not.toBeInTheDocument();
    await user.click(within(going).getByRole('button', { name: '取消下载' }));
    expect(within(going).getByRole('group')).toHaveTextContent('已下载的 2.1 GB 可以保留在这台电脑上');
    await user.click(within(going).getByRole('button', { name: '停止并删除（2.1 GB）' }));
    await waitFor(() => expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([`/v1/local-models/downloads/${FILE}`]));
  });
});

describe('a GGUF file on this computer', () => {
  it('in the desktop app is chosen with Browse, and its confirmation is beside it', async () => {
    inDesktop();
    invoke.mockResolvedValueOnce('/data/models/my model.gguf');
    const { user, requests } = renderSection({
      'GET /v1/local-models': () => Response.json(listing()),
      'POST /v1/local-models/import': () =>
        Response.json({ file: '/data/models/my model.gguf', model: { ready: true, provider: 'on-device', model: '/data/models/my model.gguf' } }),
    });
    const form = await screen.findByTestId('local-own-file');
    await user.click(within(form).getByRole('button', { name: 'Browse…' }));
    expect(invoke).toHaveBeenCalledWith('pick_gguf_file', { title: 'Choose a GGUF model file', filterName: 'GGUF model files' }, undefined);
    expect(within(form).getByLabelText('A GGUF file on this computer')).toHaveValue('/data/models/my model.gguf');
    await user.click(within(form).getByRole('button', { name: 'Use this file' }));
    expect(await within(form).findByRole('status')).toHaveTextContent('New messages are answered by /data/models/my model.gguf on this computer.');
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ path: '/data/models/my model.gguf' });
  });

  it('a refused file is said beside it; a cancelled dialog changes nothing', async () => {
    inDesktop();
    invoke.mockResolvedValueOnce(null);
    const { user } = renderSection({
      'GET /v1/local-models': () => Response.json(listing()),
      'POST /v1/local-models/import': () =>
        Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'INVALID_VALUE', message: '/data/notes.gguf is not a GGUF model file (it does not start with GGUF)' } }, { status: 400 }),
    });
    const form = await screen.findByTestId('local-own-file');
    const field = within(form).getByLabelText('A GGUF file on this computer');
    await user.type(field, '/data/notes.gguf');
    await user.click(within(form).getByRole('button', { name: 'Browse…' }));
    expect(field).toHaveValue('/data/notes.gguf');
    await user.click(within(form).getByRole('button', { name: 'Use this file' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('does not start with GGUF');
    expect(field).toHaveValue('/data/notes.gguf');
  });

  it('in a browser is typed, with no Browse (a browser gives no full path)', async () => {
    renderSection({ 'GET /v1/local-models': () => Response.json(listing()) });
    const form = await screen.findByTestId('local-own-file');
    expect(within(form).queryByRole('button', { name: 'Browse…' })).not.toBeInTheDocument();
    expect(within(form).getByText('Its full path; it is used where it is, nothing is copied.')).toBeInTheDocument();
  });
});
