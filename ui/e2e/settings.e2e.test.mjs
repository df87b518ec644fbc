// End-to-end: Settings against a real `tessera serve` that starts with no model at all. The
// person adds the scripted provider (crates/tessera-testkit, the OpenAI wire) in Providers,
// tests the connection, lists its models, picks one, makes it the default, and chats with it;
// then switches the language in General and the whole UI is Chinese without a reload.

import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply } from './scripted.mjs';

const MODELS = ['scripted-model', 'scripted-large'];

describe('settings', () => {
  const suite = suiteStack({ unconfigured: true, models: MODELS });
  let stack;
  before(() => ({ stack } = suite));

  const open = (locale) => suite.open(locale);

  test('a provider added in Settings, tested, given a model and made default answers in the chat', async () => {
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'Open settings' }).click();
    const sections = page.getByRole('navigation', { name: 'Settings sections' });
    await sections.getByRole('button', { name: 'Providers' }).click();
    await page.getByTestId('model-status').getByText(/No model is ready/).waitFor({ timeout: 10_000 });

    await page.getByRole('button', { name: 'Add a provider' }).click();
    const form = page.getByRole('form', { name: 'New provider' });
    await form.getByRole('textbox', { name: 'Name' }).fill('scripted');
    await form.getByRole('textbox', { name: 'Base URL' }).fill(`${stack.providerUrl}/v1`);
    await form.getByRole('checkbox', { name: 'Needs no API key (a local model server)' }).check();
    await form.getByRole('button', { name: 'Add provider' }).click();

    const detail = page.getByTestId('provider-detail');
    await detail.getByRole('heading', { name: 'scripted' }).waitFor({ timeout: 10_000 });
    await detail.getByRole('button', { name: 'Test the connection' }).click();
    const verdict = detail.getByTestId('check-result');
    await verdict.getByText(/Connected in \d+ ms \(2 models listed\)/).waitFor({ timeout: 10_000 });

    await detail.getByRole('button', { name: 'List models' }).click();
    await detail.getByRole('button', { name: 'Use scripted-model as the default model' }).click();
    await page.getByText('scripted-model is now the default model of scripted.').waitFor({ timeout: 10_000 });
    await detail.getByRole('button', { name: 'Make default' }).click();
    await page.getByTestId('model-status').getByText('New runs use scripted-model from scripted.').waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'settings-providers.png') });

    await sections.getByRole('button', { name: '← Back to chat' }).click();
    await pushReplies(stack.providerUrl, [textReply(['Configured ', 'and answering.'])]);
    await sendMessage(page, 'Are you there?');
    const answer = page.getByRole('log', { name: 'Messages' }).getByTestId('assistant-message').last();
    await answer.getByText('Configured and answering.').waitFor({ timeout: 15_000 });
    const calls = await modelCalls(stack.providerUrl);
    assert.equal(calls.at(-1)?.body?.model, 'scripted-model');
    assert.deepEqual(errors, []);
  });

  test('the language switch in Settings turns the whole UI Chinese without a reload', async () => {
    const { page, errors } = await open('en-US');
    await page.evaluate(() => {
      window.__sameDocument = true;
    });
    await page.keyboard.press('Control+Comma');
    await page.getByRole('heading', { level: 2, name: 'General' }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zh-CN');

    await page.getByRole('heading', { level: 1, name: '设置' }).waitFor();
    const sections = page.getByRole('navigation', { name: '设置分区' });
    for (const name of ['常规', '模型服务', '智能体', '权限']) assert.ok(await sections.getByRole('button', { name }).isVisible(), name);
    assert.ok(await page.getByRole('combobox', { name: '主题' }).isVisible());
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');

    await sections.getByRole('button', { name: '← 返回对话' }).click();
    assert.ok(await page.getByRole('navigation', { name: '会话' }).isVisible());
    assert.ok(await page.getByRole('button', { name: '打开设置' }).isVisible());
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'no reload happened');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'settings-zh.png') });
    assert.deepEqual(errors, []);
  });
});
