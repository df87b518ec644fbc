import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { LocalModelsView } from '../generated/LocalModelsView';
import { createI18n } from '../i18n';
import { SettingsApi } from '../settings/api';
import { fakeEngine } from '../test/fakeEngine';
import { renderApp } from '../test/render';
import { LocalModelsSection } from './LocalModelsSection';

const SMALL = 'qwen2.5-1.5b-instruct-q4_k_m.gguf';

function listing(over: Partial<LocalModelsView> = {}): LocalModelsView {
  return {
    catalogue: [
      {
        id: 'qwen2.5-1.5b-instruct',
        name: 'Qwen2.5 1.5B Instruct (Q4_K_M)',
        tier: 'small',
        repo: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF',
        file: SMALL,
        approx_bytes: 1_120_000_000,
        licence: 'Apache-2.0',
        good_at: 'Quick answers.',
        good_at_zh: '回答快。',
        recommended: true,
      },
      {
        id: 'qwen2.5-7b-instruct',
        name: 'Qwen2.5 7B Instruct (Q4_K_M)',
        tier: 'medium',
        repo: 'bartowski/Qwen2.5-7B-Instruct-GGUF',
        file: 'Qwen2.5-7B-Instruct-Q4_K_M.gguf',
        approx_bytes: 4_680_000_000,
        licence: 'Apache-2.0',
        good_at: 'Everyday agent work.',
        good_at_zh: '日常代理工作。',
        recommended: false,
      },
    ],
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

const download = (over: Partial<LocalModelsView['downloads'][number]>) => ({
  file: SMALL,
  model: 'qwen2.5-1.5b-instruct',
  phase: 'downloading' as const,
  done: 448_000_000,
  total: 1_120_000_000,
  bytes_per_second: 20_000_000,
  seconds_left: 34,
  problem: null,
  failure: null,
  use_when_done: true,
  ...over,
});

describe('the first run offers a model with no account', () => {
  it('downloads the one for this computer with its progress, and chats once it is whole', async () => {
    let ready = false;
    let view = listing();
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready } }),
      'GET /v1/providers': () => Response.json({ providers: [], default: null, keyring_error: null, model: { ready } }),
      'GET /v1/local-providers': () => Response.json({ found: [] }),
      'GET /v1/local-models': () => Response.json(view),
      'POST /v1/local-models/downloads': () => {
        view = listing({ downloads: [download({})] });
        return Response.json(view.downloads[0], { status: 202 });
      },
    });
    const { user } = renderApp({ client });
    const offer = await screen.findByTestId('first-run-download');
    await user.click(within(offer).getByRole('button', { name: 'Download a model (1.1 GB) — no account' }));
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ model: 'qwen2.5-1.5b-instruct', use_when_done: true });

    const bar = await within(offer).findByRole('progressbar', { name: `Download of ${SMALL}` });
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(within(offer).getByTestId('local-download-figures')).toHaveTextContent('40 % · 448 MB of 1.1 GB · 20 MB/s · 34 s left');

    // The engine finishes it and makes it the default; the next poll sees that.
    ready = true;
    view = listing({ files: [{ file: SMALL, bytes: 1_120_000_000, partial: false, catalogue_id: 'qwen2.5-1.5b-instruct', default: true }], default_file: SMALL });
    expect(await screen.findByTestId('first-run-done', {}, { timeout: 3000 })).toHaveTextContent(`Ready: ${SMALL} on this computer answers your messages now.`);
  });

  it('is not offered where the program that runs models is missing', async () => {
    const { client } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready: false } }),
      'GET /v1/providers': () => Response.json({ providers: [], default: null, keyring_error: null, model: { ready: false } }),
      'GET /v1/local-providers': () => Response.json({ found: [] }),
      'GET /v1/local-models': () => Response.json(listing({ worker_found: false })),
    });
    renderApp({ client });
    await screen.findByTestId('first-run');
    await waitFor(() => expect(screen.queryByTestId('first-run-download')).not.toBeInTheDocument());
  });
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

describe('Settings → Models on this computer', () => {
  it('resumes a paused download, uses a model on disk, and deletes one only when confirmed', async () => {
    let view = listing({
      downloads: [download({ phase: 'paused', file: 'Qwen2.5-7B-Instruct-Q4_K_M.gguf', model: 'qwen2.5-7b-instruct', done: 1_000_000_000, total: 4_680_000_000, use_when_done: false })],
      files: [
        { file: SMALL, bytes: 1_120_000_000, partial: false, catalogue_id: 'qwen2.5-1.5b-instruct', default: false },
        { file: 'Qwen2.5-7B-Instruct-Q4_K_M.gguf', bytes: 1_000_000_000, partial: true, catalogue_id: 'qwen2.5-7b-instruct', default: false },
      ],
      used_bytes: 2_120_000_000,
    });
    const { user, requests } = renderSection({
      'GET /v1/local-models': () => Response.json(view),
      'POST /v1/local-models/downloads/Qwen2.5-7B-Instruct-Q4_K_M.gguf/resume': () => Response.json(download({ phase: 'starting' }), { status: 202 }),
      [`POST /v1/local-models/files/${SMALL}/default`]: () => {
        view = { ...view, files: view.files.map((f) => (f.file === SMALL ? { ...f, default: true } : f)), default_file: SMALL };
        return Response.json({ file: SMALL, model: { ready: true, provider: 'on-device', model: SMALL } });
      },
      [`DELETE /v1/local-models/files/${SMALL}`]: () => {
        view = { ...view, files: view.files.filter((f) => f.file !== SMALL), default_file: null };
        return Response.json({ file: SMALL, freed_bytes: 1_120_000_000, model: { ready: false } });
      },
    });
    const section = await screen.findByTestId('local-models');
    expect(within(section).getByTestId('local-space')).toHaveTextContent('2.1 GB used, 50 GB free');
    const paused = within(section).getByTestId('local-download');
    expect(paused).toHaveAttribute('data-phase', 'paused');
    expect(paused).toHaveTextContent('Paused');
    expect(within(paused).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '21');
    await user.click(within(paused).getByRole('button', { name: 'Resume' }));
    expect(requests.some((r) => r.method === 'POST' && r.path.endsWith('/resume'))).toBe(true);

    const card = section.querySelector(`[data-model="qwen2.5-1.5b-instruct"]`) as HTMLElement;
    expect(card).toHaveTextContent('Recommended for this computer');
    await user.click(within(card).getByRole('button', { name: 'Use this model' }));
    expect(await within(section).findByText(`New messages are answered by ${SMALL} on this computer.`)).toBeInTheDocument();
    expect(within(card).getByTestId('local-in-use')).toHaveTextContent('In use');

    const file = section.querySelector(`.local-file[data-file="${SMALL}"]`) as HTMLElement;
    await user.click(within(file).getByRole('button', { name: 'Delete…' }));
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);
    await user.click(within(file).getByRole('button', { name: 'Delete (1.1 GB)' }));
    expect(await within(section).findByText(`${SMALL} was deleted.`)).toBeInTheDocument();
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([`/v1/local-models/files/${SMALL}`]);
  });

  it('says when the model stopped by itself, and in Chinese', async () => {
    renderSection(
      {
        'GET /v1/local-models': () =>
          Response.json(listing({ worker: { state: 'died', model: SMALL, status: 'signal: 9 (SIGKILL)', said: 'llama_model_load: loaded' } })),
      },
      'zh-CN',
    );
    const notice = await screen.findByTestId('local-worker');
    expect(notice).toHaveTextContent(`模型 ${SMALL} 已停止（signal: 9 (SIGKILL)）。下一条消息会重新启动它。`);
    expect(screen.getByText('回答快。')).toBeInTheDocument();
  });

  it('a download the server refuses is said where it was asked', async () => {
    const { user } = renderSection({
      'GET /v1/local-models': () => Response.json(listing()),
      'POST /v1/local-models/downloads': () =>
        Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'BAD_REQUEST', message: '`x` is neither a model of the catalogue nor OWNER/REPO:FILE.gguf' } }, { status: 400 }),
    });
    const section = await screen.findByTestId('local-models');
    await user.type(within(section).getByLabelText('A GGUF file of the model hub'), 'x');
    await user.click(within(section).getByRole('button', { name: 'Download' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent('neither a model of the catalogue');
  });
});

describe('the context of local models', () => {
  it('is chosen from the list, shown in use once loaded, and back to automatic', async () => {
    let view = listing({ worker: { state: 'running', model: SMALL, n_ctx: 16384 } });
    const { user, requests } = renderSection({
      'GET /v1/local-models': () => Response.json(view),
      'PUT /v1/local-models/context': (request) => {
        const tokens = (request.body as { tokens: number | null }).tokens;
        view = { ...view, context_tokens: tokens };
        return Response.json({ context_tokens: tokens });
      },
    });
    const section = await screen.findByTestId('local-models');
    expect(within(section).getByTestId('local-worker')).toHaveTextContent(`${SMALL} is loaded and ready (context: 16,384 tokens).`);
    const select = within(section).getByLabelText('How much of a conversation a local model reads at once');
    expect(select).toHaveValue('auto');
    await user.selectOptions(select, '32,768 tokens');
    expect(await within(section).findByText('Local models now read up to 32,768 tokens at once; a loaded model takes it with your next message.')).toBeInTheDocument();
    await waitFor(() => expect(select).toHaveValue('32768'));
    await user.selectOptions(select, 'auto');
    await waitFor(() => expect(select).toHaveValue('auto'));
    expect(requests.filter((r) => r.method === 'PUT').map((r) => r.body)).toEqual([{ tokens: 32768 }, { tokens: null }]);
  });

  it('offers a context set another way, and says a refusal where it was asked, in Chinese', async () => {
    const { user } = renderSection(
      {
        'GET /v1/local-models': () => Response.json(listing({ context_tokens: 12000 })),
        'PUT /v1/local-models/context': () =>
          Response.json(
            { type: 'ERROR_RESPONSE', content: { errorCode: 'BAD_REQUEST', message: 'a context of 4096 tokens is outside what a local model can be given' } },
            { status: 400 },
          ),
      },
      'zh-CN',
    );
    const section = await screen.findByTestId('local-models');
    const select = within(section).getByLabelText('本地模型一次能读入的对话长度');
    expect(select).toHaveValue('12000');
    expect(within(section).getByRole('option', { name: '12,000 个词元' })).toBeInTheDocument();
    await user.selectOptions(select, '4,096 个词元');
    expect(await within(section).findByRole('alert')).toHaveTextContent('outside what a local model can be given');
    expect(select).toHaveValue('12000');
  });
});

describe('a GGUF file from elsewhere on this computer', () => {
  it('is used where it is, by its full path', async () => {
    const { user, requests } = renderSection({
      'GET /v1/local-models': () => Response.json(listing()),
      'POST /v1/local-models/import': () => Response.json({ file: '/data/m.gguf', model: { ready: true, provider: 'on-device', model: '/data/m.gguf' } }),
    });
    const section = await screen.findByTestId('local-models');
    await user.type(within(section).getByLabelText('A GGUF file on this computer'), '/data/m.gguf');
    await user.click(within(section).getByRole('button', { name: 'Use this file' }));
    expect(await within(section).findByText('New messages are answered by /data/m.gguf on this computer.')).toBeInTheDocument();
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ path: '/data/m.gguf' });
  });
});
