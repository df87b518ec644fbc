// End-to-end: a form the model asks for, against a real `tessera serve` with the scripted
// provider (see e2e/scripted.mjs): Esc while filling it in, stopping the run that waits on it,
// and the card a form leaves in the conversation.

import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply, toolCallReply } from './scripted.mjs';

/** A form as the model is offered to ask for one: a list of fields with their labels. */
const DINNER = {
  title: 'Dinner booking',
  fields: [
    { name: 'start', label: 'Arrival date', kind: 'date', required: true },
    { name: 'vegetarian', label: 'Vegetarian menu', kind: 'yes_no' },
    { name: 'notes', label: 'Notes', kind: 'text' },
  ],
};

describe('a form the model asks for', () => {
  const suite = suiteStack();
  let stack;
  before(() => ({ stack } = suite));

  test('Esc while filling it in keeps it; stopping the run asks first; stopped, the card says so in words', async () => {
    // No reply after the form: the run is stopped before it would be asked for one.
    await pushReplies(stack.providerUrl, [toolCallReply('call_d', 'request_form', DINNER)]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Book dinner');
    const form = page.getByRole('form', { name: 'Dinner booking' });
    await form.waitFor({ timeout: 15_000 });

    // Esc inside the form is the form's: the run goes on, the typed text stays.
    const notes = form.getByRole('textbox', { name: 'Notes' });
    await notes.fill('Near the window');
    await notes.press('Escape');
    assert.ok(await form.isVisible(), 'the form is still there');
    assert.equal(await notes.inputValue(), 'Near the window');
    assert.ok(await page.getByRole('button', { name: 'Stop' }).isVisible(), 'the run still waits');

    // Why Enter does nothing while the form waits.
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('And a taxi');
    await composer.press('Enter');
    assert.equal(await page.locator('#composer-status').textContent(), 'Waiting for your answer above: answer it first, or Stop.');
    assert.equal((await modelCalls(stack.providerUrl)).length, 1, 'nothing was sent');

    // Esc elsewhere asks first, with the keyboard on the answer; Esc again keeps the form.
    await composer.press('Escape');
    const question = page.getByRole('group', { name: 'Stop the run? The form waiting for your answer will be cancelled.' });
    await question.waitFor();
    const confirm = question.getByRole('button', { name: 'Stop and cancel the form' });
    assert.ok(await confirm.evaluate((el) => el === document.activeElement), 'the keyboard is on the answer');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'form-stop-question.png') });
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    assert.ok(await form.isVisible(), 'kept: the form still waits');
    assert.equal(await notes.inputValue(), 'Near the window');

    // Stop asks the same; confirmed, the run stops and the form is cancelled.
    await page.getByRole('button', { name: 'Stop' }).click();
    await question.getByRole('button', { name: 'Stop and cancel the form' }).click();
    await form.waitFor({ state: 'detached', timeout: 10_000 });
    const card = page.getByRole('region', { name: 'Form: Dinner booking' });
    await card.waitFor({ timeout: 10_000 });
    assert.equal(await card.getByTestId('tool-phase').textContent(), 'cancelled');
    assert.equal(await card.getByTestId('form-outcome').textContent(), 'Cancelled: the run was stopped before you answered.');
    // No request JSON in sight, and the card is not named by the tool's identifier.
    const seen = await card.evaluate((el) => el.innerText);
    assert.doesNotMatch(seen, /[{}]|request_form|"fields"/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'form-stopped.png') });

    // A way forward: asked again in one click; declined this time, the card says so.
    await pushReplies(stack.providerUrl, [toolCallReply('call_r', 'request_form', DINNER), textReply(['No booking, then.'])]);
    await page.getByTestId('run-cancelled').getByRole('button', { name: 'Retry' }).click();
    await form.waitFor({ timeout: 15_000 });
    await form.getByRole('button', { name: 'Decline' }).click();
    await page.getByText('No booking, then.').waitFor({ timeout: 15_000 });
    const declined = page.getByRole('region', { name: 'Form: Dinner booking' }).last();
    assert.equal(await declined.getByTestId('tool-phase').textContent(), 'declined');
    assert.equal(await declined.getByTestId('form-outcome').textContent(), 'You declined this form.');
    assert.deepEqual(errors, []);
  });

  test('answered: the card is titled with the form’s title, its answers under their labels', async () => {
    await pushReplies(stack.providerUrl, [toolCallReply('call_a', 'request_form', DINNER), textReply(['Booked.'])]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Book dinner again');
    const form = page.getByRole('form', { name: 'Dinner booking' });
    await form.waitFor({ timeout: 15_000 });
    await form.getByLabel('Arrival date').fill('2026-12-01');
    await form.getByRole('checkbox', { name: 'Vegetarian menu' }).check();
    await form.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Booked.').waitFor({ timeout: 15_000 });
    const card = page.getByRole('region', { name: 'Form: Dinner booking' });
    assert.equal(await card.getByTestId('tool-phase').textContent(), 'answered');
    const summary = card.getByRole('region', { name: 'Your answers: Dinner booking' });
    assert.equal(await summary.locator('dt').allTextContents().then((l) => l.join(' | ')), 'Arrival date | Vegetarian menu');
    assert.match((await summary.textContent()) ?? '', /Arrival date2026-12-01Vegetarian menuYes/);
    assert.doesNotMatch(await card.evaluate((el) => el.innerText), /request_form|\bstart\b|\bvegetarian\b/);

    await page.screenshot({ path: path.join(RESULTS_DIR, 'form-answered.png') });
    assert.deepEqual(errors, []);
  });
  test('a cleared error keeps its room: nothing under the pointer moves, and the click after a date is picked lands', async () => {
    const TRIP = {
      title: 'Trip details',
      fields: [
        { name: 'start', label: 'Arrival date', kind: 'date', required: true },
        { name: 'guest', label: 'Guest name', kind: 'text', required: true },
        { name: 'vegetarian', label: 'Vegetarian menu', kind: 'yes_no' },
      ],
    };
    await pushReplies(stack.providerUrl, [toolCallReply('call_t', 'request_form', TRIP), textReply(['Noted.'])]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Plan the trip');
    const form = page.getByRole('form', { name: 'Trip details' });
    await form.waitFor({ timeout: 15_000 });
    await form.getByRole('button', { name: 'Submit' }).click();
    await form.getByTestId('field-error').nth(1).waitFor();
    await page.waitForTimeout(600);

    /** Where the fields and the buttons are, in the window. */
    const places = () =>
      form.evaluate((el) =>
        [...el.querySelectorAll('input, button')].map((c) => {
          const r = c.getBoundingClientRect();
          return { what: c.getAttribute('aria-label') ?? c.id ?? c.textContent, top: Math.round(r.top * 10) / 10, left: Math.round(r.left * 10) / 10 };
        }),
      );
    const date = form.getByLabel('Arrival date');
    const guest = form.getByRole('textbox', { name: 'Guest name' });
    const before = await places();
    const guestBox = await guest.boundingBox();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'form-errors-shown.png') });

    // The date picked (typed into Chromium's date input, as its calendar sets it): its error
    // goes, and nothing below it moves.
    await date.click();
    await page.keyboard.type('03152027');
    assert.equal(await date.inputValue(), '2027-03-15');
    assert.equal(await date.getAttribute('aria-invalid'), null, 'the date is no longer marked wrong');
    await page.waitForTimeout(100);
    assert.deepEqual(await places(), before, 'the fields stayed where they were');
    assert.doesNotMatch(await form.evaluate((el) => el.innerText), /Arrival date \*\s*This field is required/);

    // The next click, where the guest field was when the pointer set out for it, lands in it.
    await page.mouse.click(guestBox.x + guestBox.width / 2, guestBox.y + guestBox.height / 2);
    assert.ok(await guest.evaluate((el) => el === document.activeElement), 'the click after the date reached the guest field');
    await page.keyboard.type('Ada');
    assert.deepEqual(await places(), before, 'the fields stayed where they were once the second error went');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'form-errors-cleared.png') });
    await form.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Noted.').waitFor({ timeout: 15_000 });
    assert.deepEqual(errors, []);
  });
});
