// End-to-end: the permissions page and the context inspector against a real `tessera serve`
// with the scripted provider. "Always allow" stores a grant the Permissions section of Settings
// lists; revoked there, the next call of the tool asks again. An answer's Context button opens
// the inspector with the token budget; each answer keeps its tokens and latency after a reload.

import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { pushReplies, textReply, toolCallReply } from './scripted.mjs';

describe('permissions and the context inspector', () => {
  const suite = suiteStack();
  let stack;
  before(() => ({ stack } = suite));

  const open = (locale) => suite.open(locale);

  test('always allow → listed on the permissions page → revoked → the next call asks again', async () => {
    await pushReplies(stack.providerUrl, [toolCallReply('call_a', 'test_guarded_write', { ms: 0, tag: 'always' }), textReply(['Written.'])]);
    const { page, errors } = await open('en-US');
    await sendMessage(page, 'Write the log');
    const dialog = page.getByRole('dialog', { name: 'Allow the tool test_guarded_write to run?' });
    await dialog.waitFor({ timeout: 15_000 });
    await dialog.getByRole('button', { name: 'Always allow' }).click();
    await page.getByText('Written.').waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'Open settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Permissions' }).click();
    const always = page.getByRole('region', { name: /Always allowed/ });
    await always.waitFor({ timeout: 10_000 });
    const grant = always.getByTestId('grant');
    assert.equal(await grant.locator('code').textContent(), 'test_guarded_write');
    // The call the answer allowed was its first use: never "not used yet" after it.
    assert.match((await grant.textContent()) ?? '', /Granted .* · last used /);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'permissions.png') });

    // Revoke by keyboard: the button, then the confirmation that takes the focus.
    await grant.getByRole('button', { name: 'Revoke the permission for test_guarded_write' }).focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('button', { name: 'Yes, revoke' });
    await confirm.waitFor();
    assert.ok(await confirm.evaluate((el) => el === document.activeElement), 'the confirmation has the focus');
    await page.keyboard.press('Enter');
    await page.getByTestId('permissions-empty').waitFor({ timeout: 10_000 });

    await page.getByRole('button', { name: '← Back to chat' }).click();
    await pushReplies(stack.providerUrl, [toolCallReply('call_b', 'test_guarded_write', { ms: 0, tag: 'again' }), textReply(['Written again.'])]);
    await sendMessage(page, 'Write it again');
    await dialog.waitFor({ timeout: 15_000 });
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Written again.').waitFor({ timeout: 15_000 });
    assert.deepEqual(errors, []);
  });

  test('the Context button of an answer opens the inspector; tokens and latency stay after a reload', async () => {
    await pushReplies(stack.providerUrl, [textReply(['A ', 'short answer.'])]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    await sendMessage(page, 'Explain yourself');
    const log = page.getByRole('log', { name: 'Messages' });
    const answer = log.getByTestId('assistant-message').last();
    await answer.getByText('A short answer.').waitFor({ timeout: 15_000 });
    const usage = answer.getByTestId('usage');
    await usage.waitFor({ timeout: 15_000 });
    assert.match((await usage.textContent()) ?? '', /^12 in \/ 2 out tokens · \d+ ms · (≈ \$[\d.]+|cost unknown)$/);

    const button = answer.getByRole('button', { name: 'Context: what this answer was built from' });
    await button.focus();
    await page.keyboard.press('Enter');
    const inspector = page.getByRole('dialog', { name: 'What this answer was built from' });
    await inspector.waitFor({ timeout: 10_000 });
    const budget = inspector.getByRole('figure', { name: /Token budget: a window of [\d,]+ tokens/ });
    await budget.waitFor({ timeout: 10_000 });
    assert.match((await budget.getByTestId('budget-history').textContent()) ?? '', /^Conversation[\d,]+ tokens$/);
    assert.match((await budget.getByTestId('budget-reserved').textContent()) ?? '', /^Kept for the answer[\d,]+ tokens$/);
    assert.match((await inspector.getByRole('region', { name: 'Messages' }).textContent()) ?? '', /One message sent/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'inspector.png') });
    await page.keyboard.press('Escape');
    await inspector.waitFor({ state: 'detached' });

    // After a reload the answer still says what it took.
    await page.reload({ waitUntil: 'load' });
    const reloaded = page.getByRole('log', { name: 'Messages' }).getByTestId('assistant-message').last();
    await reloaded.getByTestId('usage').waitFor({ timeout: 15_000 });
    assert.match((await reloaded.getByTestId('usage').textContent()) ?? '', /^12 in \/ 2 out tokens · \d+ ms/);
    assert.ok(await reloaded.getByRole('button', { name: 'Context: what this answer was built from' }).isVisible());
    assert.deepEqual(errors, []);
  });
});
