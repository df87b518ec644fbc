// The screens a new person meets, in English and Chinese, light and dark, written to
// target-test-results/ to be looked at: the first run (a model server found on this machine, a
// provider's key), the model picker, a chat with a picture a tool made, a form, and the consent
// dialog. Each variant starts from an empty data folder; what each screen shows is asserted too.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { SCREENS_DIR, VIEWPORT, launchBrowser, pixelOf, startStack } from './harness.mjs';
import { pushReplies, textReply, toolCallReply } from './scripted.mjs';

const VARIANTS = [
  { locale: 'en-US', scheme: 'light', tag: 'en-light' },
  { locale: 'en-US', scheme: 'dark', tag: 'en-dark' },
  { locale: 'zh-CN', scheme: 'light', tag: 'zh-light' },
  { locale: 'zh-CN', scheme: 'dark', tag: 'zh-dark' },
];

const WORDS = {
  'en-US': { noModel: 'No model is set up yet', message: 'Message', newConversation: 'New conversation', ready: 'Ready' },
  'zh-CN': { noModel: '还没有设置模型', message: '消息', newConversation: '新建会话', ready: '已就绪' },
};

/** Nothing wider than the window: no horizontal scrolling anywhere. */
async function assertNoOverflow(page, where) {
  const wide = await page.evaluate(() => {
    const limit = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.right > limit + 1 && getComputedStyle(el).position !== 'fixed';
      })
      .slice(0, 3)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  });
  assert.deepEqual(wide, [], `${where}: elements past the right edge at ${VIEWPORT.width}px`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), `${where}: no horizontal scroll`);
}

async function sendMessage(page, label, text) {
  const composer = page.getByRole('textbox', { name: label });
  await composer.fill(text);
  await composer.press('Enter');
}

describe('the screens a person meets', () => {
  for (const variant of VARIANTS) {
    test(`first run, picker, picture, form and consent (${variant.tag})`, async () => {
      mkdirSync(SCREENS_DIR, { recursive: true });
      const shot = (name) => path.join(SCREENS_DIR, `screen-${name}-${variant.tag}.png`);
      const words = WORDS[variant.locale];
      const stack = await startStack({ unconfigured: true, models: ['llama3.2', 'qwen2.5:7b'], localOllama: true });
      const browser = await launchBrowser();
      try {
        const context = await browser.newContext({ locale: variant.locale, viewport: VIEWPORT, colorScheme: variant.scheme });
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(stack.url.href, { waitUntil: 'load' });
        const panel = page.getByTestId('first-run');
        await panel.waitFor({ timeout: 15_000 });
        await panel.getByTestId('first-run-local').waitFor({ timeout: 10_000 });
        assert.match((await panel.textContent()) ?? '', new RegExp(words.noModel));
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? getComputedStyle(document.documentElement).colorScheme), variant.scheme);
        await assertNoOverflow(page, 'first run');
        await page.screenshot({ path: shot('first-run') });

        // A provider with a key: the key step.
        await panel.getByRole('button', { name: 'DeepSeek', exact: true }).click();
        await panel.locator('input[type="password"]').waitFor();
        await page.screenshot({ path: shot('setup-key') });
        await panel.getByRole('button', { name: variant.locale === 'zh-CN' ? '返回' : 'Back' }).click();

        // The model server on this machine, in one click.
        await panel.getByTestId('first-run-local').getByRole('button').first().click();
        const done = page.getByTestId('first-run-done');
        await done.waitFor({ timeout: 10_000 });
        assert.match((await done.textContent()) ?? '', new RegExp(words.ready));
        await page.screenshot({ path: shot('setup-done') });

        // The picker names the model in use and offers the others.
        const picker = page.getByTestId('model-picker');
        await page.waitForFunction(() => document.querySelector('[data-testid="model-picker"]')?.textContent?.includes('ollama · llama3.2'), null, { timeout: 10_000 });
        await picker.click();
        await page.getByTestId('model-menu').waitFor();
        // The menu lists what each provider serves as it is asked: wait for the default and both models.
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="model-option"]').length >= 3, null, { timeout: 10_000 });
        await page.screenshot({ path: shot('model-picker') });
        await page.keyboard.press('Escape');

        // A picture a tool made, shown with its pixels.
        await pushReplies(stack.providerUrl, [toolCallReply('call_img', 'test_image', { color: '#ff8000', width: 64 }), textReply(['That is orange.'])]);
        await sendMessage(page, words.message, variant.locale === 'zh-CN' ? '给我看橙色' : 'Show me orange');
        const image = page.getByTestId('tool-image');
        await image.waitFor({ timeout: 15_000 });
        await page.waitForFunction(() => {
          const img = document.querySelector('[data-testid="tool-image"]');
          return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0;
        });
        assert.deepEqual(await pixelOf(image, 1, 1), [255, 128, 0]);
        await page.getByText('That is orange.').waitFor({ timeout: 10_000 });
        await assertNoOverflow(page, 'chat with a picture');
        await page.screenshot({ path: shot('chat-picture') });

        // A form the agent asks for: its title in view.
        const form = { title: variant.locale === 'zh-CN' ? '你的行程' : 'Your trip', schema: { type: 'object', required: ['city'], properties: { city: { type: 'string', title: variant.locale === 'zh-CN' ? '城市' : 'City' }, nights: { type: 'integer', minimum: 1, title: variant.locale === 'zh-CN' ? '晚数' : 'Nights' } } } };
        await pushReplies(stack.providerUrl, [toolCallReply('call_f', 'request_form', form)]);
        await page.getByRole('button', { name: words.newConversation }).first().click();
        await sendMessage(page, words.message, variant.locale === 'zh-CN' ? '订一间房' : 'Book a room');
        const card = page.getByRole('form', { name: form.title });
        await card.waitFor({ timeout: 15_000 });
        await page.waitForTimeout(400); // the scroll into view
        const box = await card.locator('h3, h2, legend').first().boundingBox();
        assert.ok(box && box.y >= 0 && box.y + box.height <= VIEWPORT.height, `the form's title is in view: ${JSON.stringify(box)}`);
        await assertNoOverflow(page, 'form');
        await page.screenshot({ path: shot('form') });

        // The consent dialog.
        await pushReplies(stack.providerUrl, [toolCallReply('call_g', 'test_guarded_write', { ms: 0, tag: 'screens' }), textReply(['Not written.'])]);
        await page.getByRole('button', { name: words.newConversation }).first().click();
        await sendMessage(page, words.message, variant.locale === 'zh-CN' ? '写日志' : 'Write the log');
        const dialog = page.getByRole('dialog');
        await dialog.waitFor({ timeout: 15_000 });
        assert.match((await dialog.textContent()) ?? '', /test_guarded_write/);
        await page.screenshot({ path: shot('consent') });
        await dialog.getByRole('button', { name: variant.locale === 'zh-CN' ? '拒绝' : 'Deny' }).click();
        await dialog.waitFor({ state: 'detached', timeout: 10_000 });

        // Every settings section fits the window too.
        await page.getByTestId('open-settings').click();
        const sections = page.getByTestId('settings-nav').locator('.settings-nav-item');
        await sections.first().waitFor({ timeout: 15_000 });
        assert.equal(await sections.count(), 6);
        for (let i = 0; i < (await sections.count()); i++) {
          await sections.nth(i).click();
          await page.waitForTimeout(300);
          await assertNoOverflow(page, `settings section ${i + 1}`);
          if (i === 0) {
            // Each dropdown's chevron sits inside its box.
            const detached = await page.locator('.settings-body .select-field').evaluateAll((fields) =>
              fields.filter((f) => {
                const box = f.querySelector('select')?.getBoundingClientRect();
                const chevron = f.querySelector('.select-field-chevron')?.getBoundingClientRect();
                return !box || !chevron || chevron.right > box.right || chevron.left < box.left;
              }).length,
            );
            assert.equal(detached, 0, 'a dropdown chevron outside its box');
            await page.screenshot({ path: shot('settings-general') });
          }
          if (i === 1) await page.screenshot({ path: shot('settings-providers') });
        }
        assert.deepEqual(errors, []);
        await context.close();
      } finally {
        await browser.close().catch(() => {});
        await stack.stop();
      }
    });
  }
});
