// End-to-end: what a failed answer leaves behind once the person retried it or edited the
// question, through the built UI and a real `tessera serve` whose scripted model refuses calls
// (see e2e/scripted.mjs).

import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { errorReply, modelCalls, pushReplies, textReply } from './scripted.mjs';

/** A provider that is busy: retried by the engine itself, quickly (it asks for 20 ms). */
const busyReply = () => ({ ...errorReply(429, 'the model is busy'), headers: [['retry-after-ms', '20']] });

/** What `read` gives once it equals `want` (polled for a while: the stored messages come after the stream). */
async function settled(read, want, timeout = 5_000) {
  const until = Date.now() + timeout;
  let value = await read();
  while (JSON.stringify(value) !== JSON.stringify(want) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

describe('retrying a failed answer', () => {
  const suite = suiteStack();
  let stack;
  before(() => ({ stack } = suite));

  /** The text of the last message the log shows (the person's or an answer). */
  const lastMessage = (log) =>
    log.evaluate((el) => [...el.querySelectorAll('[data-testid="user-message"], [data-testid="assistant-message"]')].at(-1)?.textContent ?? '');

  test('the retried answer takes the failure’s place: it ends the log, and no Retry is left, also after a reload', async () => {
    await pushReplies(stack.providerUrl, [errorReply(400, 'refused the first time'), errorReply(400, 'refused the second time'), textReply(['Third try worked.'])]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Try this');
    const log = page.getByRole('log', { name: 'Messages' });
    const failures = log.getByTestId('run-error');
    await failures.filter({ hasText: 'refused the first time' }).waitFor({ timeout: 15_000 });

    // Retried and refused again: one failure shows, the newest, not one under the other.
    await failures.getByRole('button', { name: 'Retry' }).click();
    await failures.filter({ hasText: 'refused the second time' }).waitFor({ timeout: 15_000 });
    assert.equal(await settled(() => failures.count(), 1), 1, 'the first failure is gone');

    await failures.getByRole('button', { name: 'Retry' }).click();
    await log.getByText('Third try worked.').waitFor({ timeout: 15_000 });
    await log.getByTestId('assistant-message').last().getByTestId('usage').waitFor({ timeout: 15_000 });
    assert.equal(await settled(() => failures.count(), 0), 0, 'no failure is left once the answer came');
    assert.equal(await log.getByTestId('retry-answer').count(), 0, 'nothing to retry');
    assert.match(await lastMessage(log), /Third try worked\./, 'the newest answer is the last thing shown');
    assert.equal(await log.getByTestId('assistant-message').count(), 1);
    assert.equal(await log.getByTestId('user-message').count(), 1);
    // One answer stored: no versions were made by the retries.
    assert.equal(await log.getByTestId('branch-switcher').count(), 0);
    const asked = (await modelCalls(stack.providerUrl)).filter((c) => JSON.stringify(c).includes('Try this'));
    assert.equal(asked.length, 3, 'asked once and retried twice');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'retry-answered.png') });

    // Reloaded, the conversation's events are read again: the failures stay gone.
    await page.reload({ waitUntil: 'load' });
    await log.getByText('Third try worked.').waitFor({ timeout: 15_000 });
    assert.equal(await settled(() => failures.count(), 0), 0);
    assert.match(await lastMessage(log), /Third try worked\./);
    assert.deepEqual(
      errors.filter((e) => !/status of 502/.test(e)),
      [],
    );
  });

  test('an edited question shows its own answer without the failure of the first version, which keeps it', async () => {
    await pushReplies(stack.providerUrl, [errorReply(400, 'refused the question'), textReply(['Answer to the edit.'])]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Try that');
    const log = page.getByRole('log', { name: 'Messages' });
    const failures = log.getByTestId('run-error');
    await failures.waitFor({ timeout: 15_000 });

    await log.getByTestId('user-message').getByRole('button', { name: 'Edit' }).click();
    const edit = log.getByRole('textbox', { name: 'Edit your message' });
    await edit.fill('Try that instead');
    await edit.press('Enter');
    await log.getByText('Answer to the edit.').waitFor({ timeout: 15_000 });
    const question = log.getByTestId('user-message');
    await question.getByTestId('branch-position').filter({ hasText: '2 / 2' }).waitFor({ timeout: 10_000 });
    assert.equal(await settled(() => failures.count(), 0), 0, 'the first version’s failure is not under the edit');
    assert.match(await lastMessage(log), /Answer to the edit\./);

    // The first version still failed, and says so.
    await question.getByRole('button', { name: 'Previous version' }).click();
    await failures.filter({ hasText: 'refused the question' }).waitFor({ timeout: 10_000 });
    assert.match((await question.textContent()) ?? '', /Try that1 \/ 2/);
    assert.equal(await log.getByText('Answer to the edit.').count(), 0);
    assert.deepEqual(
      errors.filter((e) => !/status of 502/.test(e)),
      [],
    );
  });

  // Seed 001 §9.1/§9.3: a rate-limited call is retried once (`maxRetries = 1`), then fails.
  test('after the last attempt failed, no “Retrying… attempt 2” is left above the failure', async () => {
    await pushReplies(stack.providerUrl, [busyReply(), busyReply()]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Are you there?');
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByTestId('run-error').waitFor({ timeout: 20_000 });
    const calls = (await modelCalls(stack.providerUrl)).filter((c) => JSON.stringify(c).includes('Are you there?'));
    assert.equal(calls.length, 2, 'the engine tried twice: the call and its one retry');
    assert.equal(await settled(() => log.getByTestId('retry-notice').count(), 0), 0, 'no retry is announced once they are over');
    assert.deepEqual(
      errors.filter((e) => !/status of 502/.test(e)),
      [],
    );
  });
});
