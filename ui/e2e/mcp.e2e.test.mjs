// End-to-end: MCP servers through the built UI and a real `tessera serve`, against the pinned
// server-everything of tests/mcp-servers (installed by scripts/install-deps.sh, never fetched
// here) and crash.mjs, a server that dies as it starts. The person pastes an mcpServers
// document in Settings, connects all, and sees the working one ready with its tools and the
// broken one failed with why and its log; then in the chat the model calls a tool whose
// server asks for a form (an elicitation), which the person answers.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply, toolCallReply } from './scripted.mjs';

const SERVERS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../tests/mcp-servers');
const EVERYTHING = path.join(SERVERS_DIR, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const DOCUMENT = {
  mcpServers: {
    everything: { command: 'node', args: [EVERYTHING, 'stdio'] },
    broken: { command: 'node', args: [path.join(SERVERS_DIR, 'crash.mjs')], startupTimeout: 3 },
  },
};

describe('MCP servers', () => {
  const suite = suiteStack();
  let stack;
  before(() => {
    assert.ok(existsSync(EVERYTHING), 'the MCP test servers are not installed: run scripts/install-deps.sh');
    ({ stack } = suite);
  });

  test('a pasted mcpServers document: Connect all shows one ready with its tools and one failed with why and its log', async () => {
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'Open settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'MCP servers' }).click();
    await page.getByText('No MCP servers yet.').waitFor({ timeout: 10_000 });

    await page.getByRole('button', { name: 'Paste a configuration' }).click();
    const form = page.getByRole('form', { name: 'Paste an mcpServers configuration' });
    await form.getByRole('textbox', { name: 'Configuration (JSON)' }).fill(JSON.stringify(DOCUMENT, null, 2));
    await form.getByRole('button', { name: 'Import' }).click();
    await page.getByTestId('mcp-note').getByText(/^Added: (everything, broken|broken, everything)\.$/).waitFor({ timeout: 10_000 });
    const list = page.getByRole('list', { name: 'Configured MCP servers' });
    const everything = list.getByRole('listitem', { name: 'everything', exact: true });
    const broken = list.getByRole('listitem', { name: 'broken', exact: true });
    // Listing starts nothing.
    assert.equal(await everything.getByTestId('mcp-state').textContent(), 'Not started');

    await page.getByRole('button', { name: 'Connect all' }).click();
    const note = page.getByTestId('mcp-note');
    await note.getByText('Only 1 of 2 servers ready: see why under each one that is not.').waitFor({ timeout: 30_000 });
    // Not the green of a success: one server did not start.
    const colours = await note.evaluate((el) => ({ note: getComputedStyle(el).color, good: getComputedStyle(document.documentElement).getPropertyValue('--good').trim() }));
    const good = await page.evaluate((c) => {
      const probe = document.createElement('span');
      probe.style.color = c;
      document.body.append(probe);
      const rgb = getComputedStyle(probe).color;
      probe.remove();
      return rgb;
    }, colours.good);
    assert.notEqual(colours.note, good);
    assert.equal(await everything.getByTestId('mcp-state').textContent(), 'Ready');
    await everything.getByRole('button', { name: 'Tools of everything' }).click();
    const tools = everything.getByRole('list', { name: 'Tools of everything' });
    const echo = tools.getByRole('listitem').filter({ hasText: 'everything__echo' });
    assert.match((await echo.textContent()) ?? '', /The server says (it only reads: runs without asking|nothing of what it does: asks first)/);
    assert.equal(await tools.getByRole('listitem').filter({ hasText: 'everything__trigger-elicitation-request' }).count(), 1);

    assert.equal(await broken.getByTestId('mcp-state').textContent(), 'Failed');
    assert.match((await broken.getByTestId('mcp-failure').textContent()) ?? '', /^Why: .+(Next try in \d+ s|Tried again when something needs it) \(attempt \d+\)\.$/);
    await broken.getByRole('button', { name: 'Log of broken' }).click();
    const log = broken.getByRole('log', { name: 'Log of broken' });
    await log.getByText(/cannot find the configuration/).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'mcp-servers.png'), fullPage: true });
    assert.deepEqual(errors, []);
  });

  test('in the chat, a form the MCP server asks for says who asked, refuses a wrong value inline, and the answer resumes the run', async () => {
    await pushReplies(stack.providerUrl, [toolCallReply('call_ask', 'everything__trigger-elicitation-request', {}), textReply(['Thanks, ', 'you are signed up.'])]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Sign me up');
    // The server says the tool changes things (not destructively): the person is asked first.
    const consent = page.getByRole('dialog', { name: 'Allow the tool everything__trigger-elicitation-request to run?' });
    await consent.waitFor({ timeout: 20_000 });
    await consent.getByRole('button', { name: 'Always allow' }).click();

    const card = page.getByTestId('form-card');
    await card.waitFor({ timeout: 20_000 });
    assert.equal(await card.getByTestId('form-requester').textContent(), 'Asked by the MCP server everything');
    await card.getByRole('textbox', { name: 'String', exact: true }).fill('Ada Lovelace');
    const email = card.getByRole('textbox', { name: 'String with email format' });
    await email.fill('x');
    await card.getByRole('button', { name: 'Submit' }).click();
    await card.getByTestId('field-error').getByText('Enter an email address').waitFor();
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'mcp-elicitation-form.png') });

    await email.fill('ada@example.com');
    await card.getByRole('button', { name: 'Submit' }).click();
    const answer = page.getByRole('log', { name: 'Messages' }).getByTestId('assistant-message').last();
    await answer.getByText('Thanks, you are signed up.').waitFor({ timeout: 20_000 });
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    const tool = page.getByRole('region', { name: 'Tool everything__trigger-elicitation-request' });
    assert.equal(await tool.getAttribute('data-phase'), 'success');
    // What the person typed reached the server, whose result the model then read.
    assert.match(JSON.stringify((await modelCalls(stack.providerUrl)).at(-1)), /Name: Ada Lovelace/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'mcp-elicitation-answered.png') });
    assert.deepEqual(errors, []);
  });

  test('a resource of the server is attached to the conversation open in the chat', async () => {
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Sign me up', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign me up' }).waitFor();
    await page.getByRole('button', { name: 'Open settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'MCP servers' }).click();
    const everything = page.getByRole('listitem', { name: 'everything', exact: true });
    await everything.getByRole('button', { name: 'Resources and prompts of everything' }).click({ timeout: 10_000 });
    const resources = everything.getByRole('list', { name: 'Resources' });
    await resources.getByRole('button', { name: 'Attach features.md to the conversation “Sign me up”' }).click({ timeout: 10_000 });
    await everything.getByText('features.md attached to “Sign me up”.').waitFor({ timeout: 10_000 });
    assert.ok((await everything.getByRole('list', { name: 'Prompts' }).getByRole('listitem').count()) > 0, 'its prompts are listed');

    // The conversation now holds the document as an evidence.
    const api = (p) => fetch(new URL(p, stack.url), { headers: { Authorization: `Bearer ${stack.token}` } });
    const { conversations } = await (await api('/v1/conversations')).json();
    const id = conversations.find((c) => c.title === 'Sign me up').id;
    const exported = await (await api(`/v1/conversations/${encodeURIComponent(id)}/export?format=context`)).text();
    assert.ok(exported.includes('demo://resource/static/document/features.md'), 'the export names the resource');
    assert.deepEqual(errors, []);
  });

  test('in Chinese the page names each server’s state', async () => {
    const { page, errors } = await suite.open('zh-CN');
    await page.getByRole('button', { name: '打开设置' }).click();
    await page.getByRole('navigation', { name: '设置分区' }).getByRole('button', { name: 'MCP 服务器' }).click();
    const list = page.getByRole('list', { name: '已配置的 MCP 服务器' });
    await list.getByRole('listitem', { name: 'everything', exact: true }).getByTestId('mcp-state').getByText('就绪').waitFor({ timeout: 10_000 });
    assert.equal(await list.getByRole('listitem', { name: 'broken', exact: true }).getByTestId('mcp-state').textContent(), '失败');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'mcp-servers-zh.png') });
    assert.deepEqual(errors, []);
  });
});
