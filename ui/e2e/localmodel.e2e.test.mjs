// End-to-end: a model on this computer, with no account and no provider at all. A real
// `tessera serve` starts with no model; the first run offers "Download a model — no account";
// the download comes from a hub on 127.0.0.1 (`tessera-fake-hub`, named by HF_ENDPOINT) serving
// the suite's own GGUF (random weights, made by scripts/make-test-gguf.sh), with its progress on
// screen; the model becomes the default; a message starts the real worker (`tessera-llama`),
// which calls a tool (forced by the model's `first_tool_choice` setting, as a person sets it for
// a small model: a random one never chooses a tool) that runs through the consent gate and the
// scheduler, and answers. Settings then show the loaded model, and unload it. With
// `request_form` the first choice, the model asks for a form; the person fills it in and the
// run goes on to an answer.
//
//   TESSERA_BIN=… TESSERA_LLAMA_BIN=… TESSERA_TEST_GGUF=… node --test e2e/localmodel.e2e.test.mjs
// Without TESSERA_LLAMA_BIN the suite skips (saying why), unless TESSERA_REQUIRE_LOCAL_MODEL=1
// (make test sets it), where that is a failure.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DIST_DIR, RESULTS_DIR, launchBrowser, openPage, sendMessage, stopChild, waitForListening } from './harness.mjs';

const worker = process.env.TESSERA_LLAMA_BIN ?? '';
const gguf = process.env.TESSERA_TEST_GGUF ?? '';
const bin = process.env.TESSERA_BIN ?? '';
const hubBin = process.env.TESSERA_FAKE_HUB_BIN || (bin ? path.join(path.dirname(bin), 'tessera-fake-hub') : '');
const missing = [
  [worker, 'TESSERA_LLAMA_BIN (the worker: make llama-worker)'],
  [gguf, 'TESSERA_TEST_GGUF (scripts/make-test-gguf.sh OUT --size tiny --context 16384)'],
  [hubBin, 'tessera-fake-hub beside TESSERA_BIN (cargo build -p tessera-testkit --bins)'],
]
  .filter(([file]) => !file || !existsSync(file))
  .map(([, what]) => what);
const skip = missing.length > 0 && process.env.TESSERA_REQUIRE_LOCAL_MODEL !== '1' ? `needs ${missing.join(', ')}` : false;

describe('a model on this computer', { skip }, () => {
  const children = [];
  let dataDir;
  let url;
  let token;
  let browser;
  let serveEnv;

  const start = (file, args, env) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    children.push(child);
    return { child, listening: waitForListening(child, path.basename(file)) };
  };

  /** `tessera serve` on the suite's data folder. */
  const serve = async () => {
    const started = start(path.resolve(bin), ['--data-dir', dataDir, 'serve', '--port', '0', '--ui-dir', DIST_DIR], serveEnv);
    url = await started.listening;
    token = new URLSearchParams(url.hash.slice(1)).get('token') ?? '';
  };

  before(async () => {
    assert.deepEqual(missing, [], 'what the suite needs is there');
    mkdirSync(RESULTS_DIR, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-e2e-local-'));
    // A slow line (about three seconds for the file), so the progress can be seen.
    const hub = await start(path.resolve(hubBin), [gguf, '--bytes-per-second', '262144'], process.env).listening;
    const env = {
      ...process.env,
      HF_ENDPOINT: hub.origin,
      TESSERA_LLAMA_BIN: path.resolve(worker),
      TESSERA_OLLAMA_URL: 'http://127.0.0.1:9',
      TESSERA_LMSTUDIO_URL: 'http://127.0.0.1:9',
    };
    for (const name of ['TESSERA_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY']) delete env[name];
    serveEnv = env;
    await serve();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close().catch(() => {});
    for (const child of children.reverse()) await stopChild(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const api = async (method, route, body) => {
    const answer = await fetch(new URL(route, url.origin), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(answer.ok, `${method} ${route}: ${answer.status} ${await answer.clone().text()}`);
    return answer.json();
  };

  test('downloads a model with no account, chats with it, calls a tool, and unloads it', async () => {
    const { page, errors } = await openPage(browser, url, 'en-US');
    const offer = page.getByTestId('first-run-download');
    const button = offer.getByRole('button', { name: /^Download a model \(.+\) — no account$/ });
    await button.waitFor({ timeout: 15_000 });
    await button.click();

    // The download's progress, as the person watches it.
    const bar = offer.getByRole('progressbar');
    await bar.waitFor({ timeout: 10_000 });
    await offer.getByTestId('local-download-figures').getByText(/\d+ % · .+ of .+/).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-downloading.png') });
    await page.getByTestId('first-run-done').getByText(/on this computer answers your messages now/).waitFor({ timeout: 60_000 });

    // Whole, checked against the hub's SHA-256, and the default.
    const listing = await api('GET', '/v1/local-models');
    const file = listing.default_file;
    assert.ok(file, JSON.stringify(listing));
    assert.deepEqual(listing.downloads, []);
    assert.equal(listing.files.find((f) => f.file === file)?.partial, false);
    // A random model never stops on its own: its answers are kept short, as a person would
    // set the model's longest answer in its provider; and it never calls a tool of its own
    // accord: its first call of a run must call this one.
    const providers = await api('GET', '/v1/providers');
    const onDevice = providers.providers.find((p) => p.name === 'on-device');
    assert.equal(onDevice?.default, true);
    const config = { ...onDevice.config, models: { ...onDevice.config.models, [file]: { max_output_tokens: 200, first_tool_choice: 'get_current_datetime' } } };
    await api('POST', '/v1/providers', config);

    await sendMessage(page, 'What time is it?');
    const tool = page.getByRole('region', { name: 'Tool get_current_datetime' });
    await tool.waitFor({ timeout: 120_000 }).catch(async (error) => {
      await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-no-tool.png') });
      const said = await page.getByRole('log', { name: 'Messages' }).textContent();
      throw new Error(`no tool card; the conversation shows: ${said}`, { cause: error });
    });
    const answer = page.getByRole('log', { name: 'Messages' }).getByTestId('assistant-message').last();
    await page.waitForFunction(() => {
      const last = [...document.querySelectorAll('[data-testid="assistant-message"]')].at(-1);
      return last && last.getAttribute('aria-busy') === 'false';
    }, null, { timeout: 120_000 });
    assert.equal(await answer.getByTestId('run-error').count(), 0, (await answer.textContent()) ?? '');
    // The call ran (its random time zone refused by the tool itself, not by the app).
    assert.match((await tool.getAttribute('data-phase')) ?? '', /^(success|error)$/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-answered.png') });

    await page.getByRole('button', { name: 'Open settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Models on this computer' }).click();
    const loaded = page.getByTestId('local-worker');
    // The worker chose the test model's own context (16,384: its cache is tiny).
    await loaded.getByText(`${file} is loaded and ready (context: 16,384 tokens).`).waitFor({ timeout: 10_000 });
    // A person asks for a longer one: the next message loads the model with it (the next test).
    await page.getByLabel('How much of a conversation a local model reads at once').selectOption({ label: '32,768 tokens' });
    await page.getByText('Local models now read up to 32,768 tokens at once; a loaded model takes it with your next message.').waitFor({ timeout: 10_000 });
    assert.equal((await api('GET', '/v1/local-models')).context_tokens, 32768);
    await page.getByLabel('How much of a conversation a local model reads at once').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-context.png') });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-settings.png'), fullPage: true });
    await loaded.getByRole('button', { name: 'Unload (free its memory)' }).click();
    await page.getByText('The model was unloaded; it loads again with your next message.').waitFor({ timeout: 10_000 });
    assert.equal((await api('GET', '/v1/local-models')).worker.state, 'not_running');
    assert.deepEqual(errors, []);
  });

  test('asks for a form through the model on this computer, and goes on with the answer', async () => {
    const { default_file: file } = await api('GET', '/v1/local-models');
    assert.ok(file, 'the first test left a default model');
    // A random model fills every string of the call to its longest: room for the form's call.
    const providers = await api('GET', '/v1/providers');
    const onDevice = providers.providers.find((p) => p.name === 'on-device');
    const config = { ...onDevice.config, models: { ...onDevice.config.models, [file]: { max_output_tokens: 1500, first_tool_choice: 'request_form' } } };
    await api('POST', '/v1/providers', config);

    const { page, errors } = await openPage(browser, url, 'en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Book a room for me');
    const log = page.getByRole('log', { name: 'Messages' });
    // Its title is the model's (random) words: the form is found by its role.
    const card = log.getByRole('form');
    await card.waitFor({ timeout: 180_000 }).catch(async (error) => {
      await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-no-form.png') });
      throw new Error(`no form; the conversation shows: ${await log.textContent()}`, { cause: error });
    });
    assert.equal(await card.getByTestId('form-requester').textContent(), 'Asked by Assistant');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-form.png') });

    // Whatever fields the model chose, a person's answer to each.
    const typed = { email: 'ada@example.com', url: 'https://example.com', date: '2026-11-27', 'datetime-local': '2026-11-27T10:30', number: '2' };
    const inputs = await card.locator('[data-field]').all();
    assert.ok(inputs.length > 0, 'the form has fields');
    const shownAsTyped = [];
    for (const input of inputs) {
      const tag = await input.evaluate((el) => el.tagName.toLowerCase());
      const type = (await input.getAttribute('type')) ?? '';
      if (tag === 'select') await input.selectOption({ index: 1 });
      else if (type === 'checkbox') await input.check();
      else {
        const value = typed[type] ?? 'x';
        await input.fill(value);
        if (['email', 'url', 'text'].includes(type)) shownAsTyped.push(value);
      }
    }
    await card.locator('button[type="submit"]').click();
    await card.waitFor({ state: 'detached', timeout: 15_000 }).catch(async (error) => {
      throw new Error(`the answer was refused: ${await card.textContent()}`, { cause: error });
    });

    // The card of the call, named by the form's title (the model's random words).
    const tool = log.getByRole('region', { name: /^Form: / });
    // The call's end first: right after the form is answered, before the run's resumption is
    // drawn, the answer so far is not busy either (the run was waiting for the person).
    await page.waitForFunction(
      (card) => !['preparing', 'called', 'queued', 'running'].includes(card?.getAttribute('data-phase') ?? 'called'),
      await tool.elementHandle(),
      { timeout: 180_000 },
    );
    assert.equal(await tool.getAttribute('data-phase'), 'success');
    await page.waitForFunction(() => {
      const last = [...document.querySelectorAll('[data-testid="assistant-message"]')].at(-1);
      return last && last.getAttribute('aria-busy') === 'false';
    }, null, { timeout: 180_000 });
    // What was answered reads as the form's labels and values.
    const summary = tool.getByRole('region', { name: /^Your answers: / });
    await summary.waitFor({ timeout: 10_000 });
    const shown = (await summary.textContent()) ?? '';
    for (const value of shownAsTyped) assert.ok(shown.includes(value), `${value} in ${shown}`);
    const answer = log.getByTestId('assistant-message').last();
    assert.equal(await answer.getByTestId('run-error').count(), 0, (await answer.textContent()) ?? '');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-model-form-answered.png') });
    // The context chosen in the first test, kept across the restart, loaded the model.
    const worker = (await api('GET', '/v1/local-models')).worker;
    assert.deepEqual([worker.state, worker.n_ctx], ['running', 32768]);
    assert.deepEqual(errors, []);
  });

  test('the model on this computer embeds a project\'s files: search by words and meaning, offline', async () => {
    const { default_file: file } = await api('GET', '/v1/local-models');
    assert.ok(file, 'the first test left a default model');
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tessera-e2e-embed-'));
    writeFileSync(path.join(folder, 'ferry.md'), '# Ferry\n\nThe harbour ferry leaves at 07:40 from pier nine.\n');
    writeFileSync(path.join(folder, 'lunch.md'), '# Lunch\n\nSoup and bread on Tuesdays.\n');
    await api('PUT', '/v1/settings/knowledge_embedding', { value: { provider: 'on-device', model: file } });
    await api('POST', '/v1/projects', { name: 'Harbour' });
    await api('POST', '/v1/projects/Harbour/knowledge', { path: folder });
    const deadline = Date.now() + 180_000;
    let status;
    for (;;) {
      status = await api('GET', '/v1/projects/Harbour/knowledge');
      if (status.idle && status.chunks > 0 && status.embedded_chunks === status.chunks) break;
      assert.equal(status.embed_error, null, JSON.stringify(status));
      assert.ok(Date.now() < deadline, `the files were not embedded: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(status.retrieval, 'hybrid');
    assert.equal(status.embedding_model, `on-device/${file}`);
    // Relevance is the words' (the model's weights are random); the vectors took part.
    const found = await api('GET', `/v1/projects/Harbour/knowledge/search?q=${encodeURIComponent('harbour ferry')}`);
    assert.equal(found.retrieval, 'hybrid');
    assert.ok(found.hits[0].path.endsWith('ferry.md'), JSON.stringify(found.hits[0]));
    assert.ok(found.hits.some((h) => h.matched_by.includes('vector')), JSON.stringify(found.hits));
    rmSync(folder, { recursive: true, force: true });
  });
});
