// End-to-end: where models download from, as a person meets it. A real `tessera serve` whose hub
// (HF_ENDPOINT) cannot be reached: the failed download says so in the person's language and
// offers "Use a mirror or proxy"; the mirror typed there (`tessera-fake-hub` on 127.0.0.1) is
// saved and the download goes on from it; cancelling asks first and keeps what was downloaded,
// which stays listed to delete. Needs no model worker.
//
//   TESSERA_BIN=… node --test e2e/localdownload.e2e.test.mjs

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DIST_DIR, RESULTS_DIR, launchBrowser, openPage, stopChild, waitForListening } from './harness.mjs';

const bin = process.env.TESSERA_BIN ?? '';
const hubBin = process.env.TESSERA_FAKE_HUB_BIN || (bin ? path.join(path.dirname(bin), 'tessera-fake-hub') : '');
const missing = [
  [bin, 'TESSERA_BIN (cargo build -p tessera-cli --bin tessera)'],
  [hubBin, 'tessera-fake-hub beside TESSERA_BIN (cargo build -p tessera-testkit --bins)'],
]
  .filter(([file]) => !file || !existsSync(file))
  .map(([, what]) => what);

const MODEL = 'tessera/mirror-test-GGUF:mirror-test.gguf';
const FILE = 'mirror-test.gguf';

/** A port on 127.0.0.1 where nothing listens: a hub the network blocks. */
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('where models download from', { skip: missing.length > 0 ? `needs ${missing.join(', ')}` : false }, () => {
  const children = [];
  let dataDir;
  let url;
  let token;
  let browser;
  let blocked;
  let mirror;

  const start = (file, args, env) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    children.push(child);
    return waitForListening(child, path.basename(file));
  };

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-e2e-hub-'));
    // 8 MB at 512 kB/s: long enough to be seen going, and to be stopped part way.
    const content = path.join(dataDir, 'hosted.gguf');
    writeFileSync(content, Buffer.concat([Buffer.from('GGUF'), randomBytes(8 * 1024 * 1024)]));
    mirror = (await start(path.resolve(hubBin), [content, '--bytes-per-second', '524288'], process.env)).origin;
    blocked = await closedPort();
    const env = { ...process.env, HF_ENDPOINT: blocked, TESSERA_OLLAMA_URL: 'http://127.0.0.1:9', TESSERA_LMSTUDIO_URL: 'http://127.0.0.1:9' };
    for (const name of ['TESSERA_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'https_proxy', 'http_proxy', 'all_proxy']) delete env[name];
    url = await start(path.resolve(bin), ['--data-dir', path.join(dataDir, 'data'), 'serve', '--port', '0', '--ui-dir', DIST_DIR], env);
    token = new URLSearchParams(url.hash.slice(1)).get('token') ?? '';
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

  const openModels = async (locale, section) => {
    const opened = await openPage(browser, url, locale);
    const { page } = opened;
    await page.getByRole('button', { name: locale === 'zh-CN' ? '打开设置' : 'Open settings' }).click();
    await page.getByRole('navigation', { name: locale === 'zh-CN' ? '设置分区' : 'Settings sections' }).getByRole('button', { name: section }).click();
    await page.getByTestId('local-models').waitFor({ timeout: 10_000 });
    return opened;
  };

  test('a blocked hub is said plainly, a mirror gets the model, and a cancel keeps what came', async () => {
    const { page, context, errors } = await openModels('en-US', 'Models on this computer');
    await page.getByLabel('A GGUF file of the model hub').fill(MODEL);
    await page.getByRole('button', { name: 'Download', exact: true }).click();

    const card = page.getByTestId('local-download');
    const problem = card.getByTestId('local-download-problem');
    await problem.waitFor({ timeout: 30_000 });
    assert.equal(
      await problem.textContent(),
      `Tessera could not reach the model hub at ${blocked}. Your network may block it: a mirror or a proxy may get through. What was downloaded is kept.`,
    );
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-hub-unreachable.png') });

    // The same in Chinese, with no English of the engine's.
    const zh = await openModels('zh-CN', '本机模型');
    const zhProblem = zh.page.getByTestId('local-download-problem');
    await zhProblem.waitFor({ timeout: 10_000 });
    assert.match((await zhProblem.textContent()) ?? '', /^Tessera 无法连接到模型仓库 http:\/\/127\.0\.0\.1:\d+。你的网络可能屏蔽了它/);
    await zh.page.getByTestId('local-download').getByRole('button', { name: '使用镜像或代理' }).waitFor();
    await zh.page.screenshot({ path: path.join(RESULTS_DIR, 'local-hub-unreachable-zh.png') });
    await zh.context.close();

    // The way out: a mirror, typed where the button leads.
    await card.getByRole('button', { name: 'Use a mirror or proxy' }).click();
    const address = page.getByLabel('Hub address (a mirror)');
    await page.waitForFunction(() => document.activeElement?.getAttribute('placeholder') === 'https://hf-mirror.com');
    assert.ok(await address.isVisible(), 'the field is in view');
    await address.fill(mirror);
    await page.getByRole('button', { name: 'Save download settings' }).click();
    await page.getByTestId('local-hub').getByRole('status').getByText(`Saved: models download from ${mirror}.`).waitFor({ timeout: 10_000 });
    assert.equal((await api('GET', '/v1/settings')).settings.model_hub_address, mirror);

    await card.getByRole('button', { name: 'Try again' }).click();
    await card.getByTestId('local-download-figures').getByText(/\d+ % · .+ of .+/).waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => {
      const bar = document.querySelector('[data-testid="local-download"] [role="progressbar"]');
      return Number(bar?.getAttribute('aria-valuenow') ?? 0) >= 5;
    }, null, { timeout: 20_000 });

    // Cancel asks, and keeps what came.
    await card.getByRole('button', { name: 'Cancel download' }).click();
    const ask = card.getByRole('group', { name: `Stop the download of ${FILE}?` });
    await ask.getByText(/^Stop this download\? The .+ downloaded so far can stay on this computer/).waitFor();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'local-cancel-asks.png') });
    await ask.getByRole('button', { name: 'Stop, keep what was downloaded' }).click();
    await page.getByText(`The download of ${FILE} stopped. What was downloaded is kept`).waitFor({ timeout: 10_000 });
    const listing = await api('GET', '/v1/local-models');
    assert.deepEqual(listing.downloads, []);
    const kept = listing.files.find((f) => f.file === FILE);
    assert.ok(kept?.partial && kept.bytes > 0, JSON.stringify(listing.files));
    assert.ok(existsSync(path.join(dataDir, 'data', 'models', `${FILE}.incomplete`)), 'the partial file is on disk');

    // Listed, it can still be deleted.
    const row = page.locator(`.local-file[data-file="${FILE}"]`);
    await row.getByText('Part downloaded').waitFor({ timeout: 10_000 });
    await row.getByRole('button', { name: 'Delete…' }).click();
    await row.getByRole('button', { name: /^Delete \(.+\)$/ }).click();
    await row.waitFor({ state: 'detached', timeout: 10_000 });
    assert.ok(!existsSync(path.join(dataDir, 'data', 'models', `${FILE}.incomplete`)), 'deleted when asked');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
