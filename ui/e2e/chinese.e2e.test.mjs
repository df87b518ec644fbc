// The Chinese UI walked as a person meets it, against a real `tessera serve`: the first run, a
// chat with an answer and a tool's card, a retry on its way, a failure, a form, the consent
// dialog, the context inspector and every Settings page. On each, the text a person sees or
// hears (visible text, and the labels and titles of what is shown) must be Chinese but for
// names: a Latin-script word outside the short list below is a string left untranslated.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { RESULTS_DIR, VIEWPORT, launchBrowser, startStack } from './harness.mjs';
import { errorReply, pushReplies, textReply, toolCallReply } from './scripted.mjs';

/**
 * Latin words that are names, not text to translate (compared without case: a provider's id is
 * its name in lower case): the product, providers, model servers and the catalogue's models by
 * their own names; formats and protocols Chinese writes so too; units and keys as printed. A
 * word with a digit, a dot, a hyphen, an underscore, a slash or an inner capital is an identifier (a
 * model, tool, file, setting or resource) and is let through by shape, not listed here.
 */
const NAMES = new Set(
  [
    // the product; providers, model servers and hubs; the local-model catalogue's names
    'Tessera', 'OpenAI', 'Anthropic', 'DeepSeek', 'Ollama', 'LM', 'Studio', 'LMStudio', 'Moonshot', 'Kimi', 'Qwen', 'Hugging', 'Face', 'Mistral', 'Instruct', 'Small',
    // formats, protocols, hardware
    'API', 'JSON', 'Markdown', 'MCP', 'URL', 'HTTP', 'HTTPS', 'GGUF', 'CPU', 'GPU', 'RAM',
    // units ("token" is how Chinese AI products count, as DeepSeek's and Qwen's own pages do)
    'ms', 'B', 'KB', 'MB', 'GB', 'USD', 'token',
    // keys as printed on the keyboard
    'Ctrl', 'Cmd', 'Shift', 'Alt', 'Enter', 'Esc', 'Tab',
    // the test tool's own caption of the picture it makes (a tool's words, not Tessera's)
    'square',
  ].map((w) => w.toLowerCase()),
);

/**
 * The words of what the page shows: text nodes that are rendered, and the accessible names,
 * descriptions, titles and placeholders of shown elements. Left out: code (tool names, paths,
 * JSON a person inspects), what the person typed, and text the UI marks as another language's
 * (`lang`): the engine's or a provider's own words kept as a detail under their translation.
 */
async function shownText(page) {
  return page.evaluate(() => {
    const skip = 'code, kbd, pre, samp, textarea, [contenteditable="true"], [lang]:not([lang^="zh"]), [data-testid="user-message"]';
    const shown = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) || el.closest('.sr-only, .visually-hidden');
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      const text = node.textContent?.trim();
      if (!text || !parent || parent.closest(skip) || parent.closest('script, style, template')) continue;
      if (parent.closest('option')) {
        const select = parent.closest('select');
        if (select && select.checkVisibility()) out.push(text);
        continue;
      }
      if (shown(parent)) out.push(text);
    }
    for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder], [alt], [aria-description], [aria-roledescription]')) {
      if (el.closest(skip) && !el.matches('textarea')) continue;
      if (!shown(el)) continue;
      for (const attr of ['aria-label', 'title', 'placeholder', 'alt', 'aria-description', 'aria-roledescription']) {
        const value = el.getAttribute(attr)?.trim();
        if (value) out.push(value);
      }
    }
    return out;
  });
}

/** The Latin-script words of `texts` that are not names, each with the text it was found in. */
function englishIn(texts) {
  const found = [];
  for (const text of texts) {
    const rest = text
      .replace(/\bhttps?:\/\/\S*/g, ' ') // addresses
      .replace(/`[^`]*`/g, ' '); // a command quoted as code
    for (const { 0: token, index } of rest.matchAll(/[A-Za-z0-9#][A-Za-z0-9._:/#'’+-]*/g)) {
      const word = token.replace(/[.:'’+-]+$/, '');
      if (!/[A-Za-z]/.test(word)) continue; // a number
      if (/[0-9_/#.-]|[a-z][A-Z]/.test(word)) continue; // an identifier or a file name, by its shape
      if (NAMES.has(word.toLowerCase())) continue;
      if (/^[A-Z]$/.test(word) && rest.slice(0, index).endsWith('+')) continue; // the letter of Ctrl+K
      found.push(`${word}  ←  ${text.slice(0, 160)}`);
    }
  }
  return [...new Set(found)];
}

/** Collects what is left in English on this screen under `where`. */
async function walk(page, where, leftovers, shots) {
  const words = englishIn(await shownText(page));
  for (const w of words) leftovers.push(`${where}: ${w}`);
  if (shots) await page.screenshot({ path: path.join(RESULTS_DIR, `zh-walk-${where}.png`) });
}

async function send(page, text) {
  const composer = page.getByRole('textbox', { name: '消息' });
  await composer.fill(text);
  await composer.press('Enter');
}

/** A provider that is busy, asking to be retried in `ms`. */
const busyReply = (ms) => ({ ...errorReply(429, 'the model is busy'), headers: [['retry-after-ms', String(ms)]] });

describe('the Chinese UI', () => {
  test('every string of Tessera’s own is Chinese: first run, chat, tool card, retry, failure, form, consent, inspector, settings', async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const stack = await startStack({ unconfigured: true, models: ['llama3.2', 'qwen2.5:7b'], localOllama: true });
    const browser = await launchBrowser();
    const leftovers = [];
    try {
      const context = await browser.newContext({ locale: 'zh-CN', viewport: VIEWPORT });
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(stack.url.href, { waitUntil: 'load' });

      // The first run: the offer, a provider's key step, and done.
      const panel = page.getByTestId('first-run');
      await panel.getByTestId('first-run-local').waitFor({ timeout: 15_000 });
      await walk(page, 'first-run', leftovers, true);
      await panel.getByRole('button', { name: 'DeepSeek', exact: true }).click();
      await panel.locator('input[type="password"]').waitFor();
      await walk(page, 'first-run-key', leftovers, true);
      await panel.getByRole('button', { name: '返回' }).click();
      await panel.getByTestId('first-run-local').getByRole('button').first().click();
      await page.getByTestId('first-run-done').waitFor({ timeout: 10_000 });
      await walk(page, 'first-run-done', leftovers, true);

      // A chat: a tool's card and an answer.
      await pushReplies(stack.providerUrl, [toolCallReply('call_img', 'test_image', { color: '#ff8000', width: 64 }), textReply(['这是', '橙色。'])]);
      await send(page, '给我看橙色');
      await page.getByText('这是橙色。').waitFor({ timeout: 15_000 });
      await page.getByTestId('usage').first().waitFor({ timeout: 15_000 });
      await walk(page, 'chat', leftovers, true);
      await page.getByTestId('tool-card').first().locator('summary, button').first().click().catch(() => {});
      await walk(page, 'chat-tool-open', leftovers, true);

      // The inspector of that answer.
      await page.getByTestId('assistant-message').last().getByRole('button', { name: /上下文/ }).click();
      const inspector = page.getByRole('dialog');
      await inspector.getByRole('figure').waitFor({ timeout: 10_000 });
      await walk(page, 'inspector', leftovers, true);
      await page.keyboard.press('Escape');
      await inspector.waitFor({ state: 'detached' });

      // A retry on its way, then a failure.
      await pushReplies(stack.providerUrl, [busyReply(3_000), errorReply(400, 'refused by the provider')]);
      await page.getByRole('button', { name: '新建会话' }).first().click();
      await send(page, '再试一次');
      await page.getByTestId('retry-notice').waitFor({ timeout: 15_000 });
      await walk(page, 'retrying', leftovers, true);
      await page.getByTestId('run-error').waitFor({ timeout: 15_000 });
      await walk(page, 'failed', leftovers, true);

      // A form.
      const form = { title: '你的行程', fields: [{ name: 'city', label: '城市', kind: 'text', required: true }, { name: 'nights', label: '晚数', kind: 'number' }] };
      await pushReplies(stack.providerUrl, [toolCallReply('call_f', 'request_form', form), textReply(['好的。'])]);
      await page.getByRole('button', { name: '新建会话' }).first().click();
      await send(page, '订一间房');
      const card = page.getByRole('form', { name: '你的行程' });
      await card.waitFor({ timeout: 15_000 });
      await walk(page, 'form', leftovers, true);
      await card.getByRole('textbox', { name: /城市/ }).fill('杭州');
      await card.getByRole('button', { name: '提交' }).click();
      await page.getByText('好的。').waitFor({ timeout: 15_000 });
      await walk(page, 'form-answered', leftovers, true);

      // The consent dialog.
      await pushReplies(stack.providerUrl, [toolCallReply('call_g', 'test_guarded_write', { ms: 0, tag: 'zh' }), textReply(['没有写。'])]);
      await page.getByRole('button', { name: '新建会话' }).first().click();
      await send(page, '写日志');
      const dialog = page.getByRole('dialog');
      await dialog.waitFor({ timeout: 15_000 });
      await walk(page, 'consent', leftovers, true);
      await dialog.getByRole('button', { name: '拒绝' }).click();
      await page.getByText('没有写。').waitFor({ timeout: 15_000 });
      await walk(page, 'consent-denied', leftovers, false);

      // Every Settings page.
      await page.getByTestId('open-settings').click();
      const sections = page.getByTestId('settings-nav').locator('.settings-nav-item');
      await sections.first().waitFor({ timeout: 15_000 });
      for (let i = 0; i < (await sections.count()); i++) {
        await sections.nth(i).click();
        await page.waitForTimeout(600);
        await walk(page, `settings-${i + 1}`, leftovers, true);
      }
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await browser.close().catch(() => {});
      await stack.stop();
    }
    assert.deepEqual(leftovers, [], `English left in the Chinese UI:\n${leftovers.join('\n')}`);
  });
});
