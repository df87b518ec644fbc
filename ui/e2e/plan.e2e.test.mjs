// End-to-end: a plan drawn as a graph whose steps change state live. The scripted model calls
// invoke_planner; the planner's (scripted) model writes three steps, the third depending on the
// first two; the real `tessera serve` runs them. The graph shows three steps and two edges, all
// done at the end (in words as well as colour), and the same after a reload. (The planner may
// only plan with instant built-in tools, so the states in between are checked on the recorded
// events, in ui/src/chat/plan/plan.test.tsx.)
//
// With PLAN_FIXTURE=<file>, the conversation's stored events are also written there as SSE
// (the fixture of ui/src/chat/plan/plan.test.ts).

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, VIEWPORT, openPage, sendMessage, suiteStack } from './harness.mjs';
import { pushReplies, textReply, toolCallReply } from './scripted.mjs';

const PLAN = {
  instructions: [
    { instructionId: 'sum', action: 'calculator', parameters: { expression: '1+1' } },
    { instructionId: 'clock', action: 'get_current_datetime', parameters: { timezone: 'UTC' } },
    { instructionId: 'total', action: 'calculator', parameters: { expression: '6*7' }, dependencies: ['sum', 'clock'] },
  ],
};

/** The conversation's stored events as SSE text, up to the end of its last run. */
async function storedEvents(stack, conversationId) {
  const controller = new AbortController();
  const response = await fetch(new URL(`/v1/conversations/${conversationId}/events`, stack.url), {
    headers: { authorization: `Bearer ${stack.token}` },
    signal: controller.signal,
  });
  assert.equal(response.status, 200);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + 10_000;
  // The follow stream never ends: read until the run's `done`, whole.
  while (!/"domain":"system","type":"done"[^\n]*\n\n/.test(text)) {
    if (Date.now() > deadline) throw new Error(`no done event in\n${text}`);
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  return text;
}

describe('a plan as a live graph', () => {
  const suite = suiteStack();
  const { contexts } = suite;
  let stack;
  let browser;
  before(() => ({ stack, browser } = suite));

  test('three steps, the third after the first two: drawn with two edges, live, done, and the same after a reload', async () => {
    await pushReplies(stack.providerUrl, [
      toolCallReply('call_plan', 'invoke_planner', { task: 'Add 1 and 1, read the clock, then work out 6*7.' }),
      textReply([JSON.stringify(PLAN)]),
      textReply(['Both read; the total is 42.']),
    ]);
    const opened = await openPage(browser, stack.url, 'en-US');
    contexts.push(opened.context);
    const { page, errors } = opened;
    await sendMessage(page, 'Plan it');

    const log = page.getByRole('log', { name: 'Messages' });
    const graph = log.getByRole('figure', { name: /Plan/ });
    await graph.waitFor({ timeout: 20_000 });
    const nodes = graph.getByTestId('plan-node');
    assert.equal(await nodes.count(), 3);
    const edges = graph.locator('[data-testid="plan-edge"]');
    assert.equal(await edges.count(), 2);
    assert.deepEqual(
      await edges.evaluateAll((es) => es.map((e) => `${e.dataset.from} → ${e.dataset.to}`)),
      ['call_plan/sum → call_plan/total', 'call_plan/clock → call_plan/total'],
    );

    const total = graph.locator('[data-step="call_plan/total"]');
    // The end: every step done; the answer arrives.
    await log.getByText('Both read; the total is 42.').waitFor({ timeout: 20_000 });
    assert.deepEqual(await nodes.evaluateAll((ns) => ns.map((n) => n.dataset.state)), ['done', 'done', 'done']);
    assert.match((await graph.getByTestId('plan-summary').textContent()) ?? '', /3 of 3 steps ended/);
    assert.match((await total.textContent()) ?? '', /calculator\s*✓\s*done/);
    const steps = graph.getByRole('list', { name: 'Steps of the plan' });
    assert.match((await steps.textContent()) ?? '', /Step total, calculator: done\. Runs after sum, clock\./);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'plan-done.png') });
    // The third step's result, by keyboard.
    await total.focus();
    await page.keyboard.press('Enter');
    const details = graph.getByRole('region', { name: 'Step details' });
    await details.waitFor();
    assert.match((await details.getByTestId('plan-arguments').textContent()) ?? '', /"expression": "6\*7"/);
    assert.match((await details.getByTestId('plan-result').textContent()) ?? '', /42/);
    assert.equal(await total.getAttribute('aria-expanded'), 'true');
    // At 800×600 the page does not scroll sideways: a wide graph scrolls within its own box.
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= VIEWPORT.width);

    const conversationId = await page.locator('[data-testid="conversation-item"][aria-current="page"]').getAttribute('data-conversation-id');
    assert.ok(conversationId);
    if (process.env.PLAN_FIXTURE) writeFileSync(process.env.PLAN_FIXTURE, await storedEvents(stack, conversationId));

    // After a reload, from the stored events: the same graph, every step done.
    await page.reload({ waitUntil: 'load' });
    await page.getByTestId('app-shell').waitFor();
    const again = page.getByRole('log', { name: 'Messages' }).getByRole('figure', { name: /Plan/ });
    await again.waitFor({ timeout: 15_000 });
    assert.equal(await again.getByTestId('plan-node').count(), 3);
    assert.equal(await again.locator('[data-testid="plan-edge"]').count(), 2);
    assert.deepEqual(await again.getByTestId('plan-node').evaluateAll((ns) => ns.map((n) => n.dataset.state)), ['done', 'done', 'done']);
    assert.deepEqual(errors, []);
  });
});
