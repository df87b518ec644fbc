import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { afterEach, describe, expect, it } from 'vitest';
import { initialChatState, reduceAll, type ChatState } from '../chat/reducer';
import type { Event } from '../generated/Event';
import { createI18n } from '../i18n';
import { fakeEngine, type RecordedRequest } from '../test/fakeEngine';
import { WebToolsAnnouncer } from './announcer';
import { HIGHLIGHT_ATTRIBUTE, clearHighlight } from './highlight';
import { WebToolsHost } from './WebToolsHost';

const CONV = 'conv-web';
const RUN = 'run-1';
const MESSAGE = 'msg-1';

let seq = 0;
function event(domain: string, type: string, payload: Record<string, unknown>): Event {
  seq += 1;
  return { protocol: 'easyflow-chat', version: '1.1', domain, type, conversation_id: CONV, message_id: MESSAGE, payload, meta: { run_id: RUN, seq } } as unknown as Event;
}

function call(id: string, name: string, args: unknown): Event {
  return event('tool', 'tool_call', { tool_call_id: id, name, arguments: args, runtime: 'FRONTEND', provider: 'client:tessera-ui' });
}

/** The run's state after these events, in this order. */
function chatOf(...events: Event[]): ChatState {
  const ordered = [event('system', 'status', { state: 'running' }), ...events].map((e, i) => ({ ...e, meta: { ...e.meta, seq: i + 1 } }));
  return reduceAll(initialChatState, ordered);
}

function engine() {
  return fakeEngine({
    'POST /v1/messages': (request) => {
      const body = request.body as { type: string; content: { results?: { callId: string }[] } };
      const data = body.type === 'TOOL_CALL_RESPONSE' ? { accepted: body.content.results?.map((r) => r.callId) } : { tools: ['highlight_element', 'display_overlay'] };
      return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'ok', data } });
    },
  });
}

function responses(requests: RecordedRequest[]) {
  return requests
    .map((r) => r.body as { type?: string; contextId?: string; content?: { results?: Record<string, unknown>[] } } | undefined)
    .filter((b) => b?.type === 'TOOL_CALL_RESPONSE')
    .flatMap((b) => b?.content?.results ?? []);
}

function host(chat: ChatState, fake = engine()) {
  const announcer = new WebToolsAnnouncer(fake.client);
  const i18n = createI18n();
  const ui = (state: ChatState, reconnecting = false) => (
    <I18nextProvider i18n={i18n}>
      <button type="button">Before</button>
      <div id="composer">composer</div>
      <WebToolsHost client={fake.client} announcer={announcer} conversationId={CONV} chat={state} connection="connected" reconnecting={reconnecting} />
    </I18nextProvider>
  );
  const view = render(ui(chat));
  return { ...fake, rerender: (state: ChatState, reconnecting = false) => view.rerender(ui(state, reconnecting)) };
}

function announcements(requests: RecordedRequest[]) {
  return requests.filter((r) => (r.body as { type?: string } | undefined)?.type === 'CLIENT_CAPABILITIES');
}

afterEach(() => clearHighlight());

describe('the web tools host', () => {
  it('announces the tools for the conversation shown, with their definitions', async () => {
    const { requests } = host(chatOf());
    await waitFor(() => expect(requests.some((r) => (r.body as { type?: string })?.type === 'CLIENT_CAPABILITIES')).toBe(true));
    const announced = requests.find((r) => (r.body as { type?: string })?.type === 'CLIENT_CAPABILITIES')?.body as {
      contextId: string;
      content: { clientId: string; supportedTools: { toolId: string; permissionLevel: string; parameters: unknown }[] };
    };
    expect(announced.contextId).toBe(CONV);
    expect(announced.content.supportedTools.map((t) => [t.toolId, t.permissionLevel])).toEqual([
      ['highlight_element', 'NONE'],
      ['display_overlay', 'NONE'],
    ]);
  });

  it('announces once per conversation, and again after the stream was lost (the engine may have restarted)', async () => {
    const { requests, rerender } = host(chatOf());
    await waitFor(() => expect(announcements(requests)).toHaveLength(1));
    rerender(chatOf(event('llm', 'message', { delta: 'hi' })));
    await new Promise((r) => setTimeout(r, 20));
    expect(announcements(requests)).toHaveLength(1);
    rerender(chatOf(), true);
    await new Promise((r) => setTimeout(r, 20));
    expect(announcements(requests)).toHaveLength(1); // not while cut off
    rerender(chatOf(), false);
    await waitFor(() => expect(announcements(requests)).toHaveLength(2));
  });

  it('runs a highlight call once and answers with what was highlighted', async () => {
    // A long highlight and a patient wait: on a loaded machine the answer may take a while,
    // and the highlight must still be there when it is checked.
    const { requests, rerender } = host(chatOf(call('call_h', 'highlight_element', { selector: '#composer', style: 'outline', duration: 20_000 })));
    await waitFor(() => expect(responses(requests)).toHaveLength(1), { timeout: 5_000 });
    expect(document.getElementById('composer')).toHaveAttribute(HIGHLIGHT_ATTRIBUTE, 'outline');
    expect(responses(requests)[0]).toMatchObject({ callId: 'call_h', status: 'SUCCESS', result: { found: true } });
    expect(JSON.stringify(responses(requests)[0])).not.toContain('"name"');
    // Said in the render after the call ran, which may come after its answer was sent.
    await waitFor(() => expect(screen.getByTestId('webtool-status')).toHaveTextContent('Highlighted: composer'));
    // More events of the same run (the call still without its result) do not run it again.
    rerender(chatOf(call('call_h', 'highlight_element', { selector: '#composer', style: 'outline', duration: 20_000 }), event('tool', 'tool_started', { tool_call_id: 'call_h' })));
    await new Promise((r) => setTimeout(r, 20));
    expect(responses(requests)).toHaveLength(1);
  });

  it('answers a call with an invalid selector with an ERROR the model can read', async () => {
    const { requests } = host(chatOf(call('call_bad', 'highlight_element', { selector: 'div[' })));
    await waitFor(() => expect(responses(requests)).toHaveLength(1));
    expect(responses(requests)[0]).toMatchObject({ callId: 'call_bad', status: 'ERROR', error: { code: 'INVALID_SELECTOR', message: expect.stringContaining('`div[` is not a valid CSS selector') } });
  });

  it('does not run a replayed call that already has its result', async () => {
    const replay = chatOf(
      call('call_old', 'highlight_element', { selector: '#composer' }),
      event('tool', 'tool_result', { tool_call_id: 'call_old', status: 'success', result: {} }),
      event('system', 'status', { state: 'completed' }),
    );
    const { requests } = host(replay);
    await new Promise((r) => setTimeout(r, 30));
    expect(responses(requests)).toEqual([]);
    expect(document.getElementById('composer')).not.toHaveAttribute(HIGHLIGHT_ATTRIBUTE);
  });

  it('shows a note as a dialog; Escape closes it and focus returns where it was', async () => {
    const user = userEvent.setup();
    const { requests, rerender } = host(chatOf());
    const before = screen.getByRole('button', { name: 'Before' });
    before.focus();
    rerender(chatOf(call('call_o', 'display_overlay', { overlayData: 'The export button is top right.', style: 'note' })));
    const dialog = await screen.findByRole('dialog', { name: 'Shown by the assistant' });
    expect(dialog).toHaveTextContent('The export button is top right.');
    expect(screen.getByRole('button', { name: 'Close' })).toHaveFocus();
    await waitFor(() => expect(responses(requests)).toHaveLength(1));
    expect(responses(requests)[0]).toMatchObject({ callId: 'call_o', status: 'SUCCESS', result: { shown: true, style: 'note' } });
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(before).toHaveFocus();
  });

  it('closes the overlay with its Close button, and by itself after its duration', async () => {
    const user = userEvent.setup();
    const { rerender } = host(chatOf());
    rerender(chatOf(call('call_1', 'display_overlay', { overlayData: 'one' })));
    await user.click(await screen.findByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    rerender(chatOf(call('call_1', 'display_overlay', { overlayData: 'one' }), call('call_2', 'display_overlay', { overlayData: 'two', duration: 50 })));
    expect(await screen.findByRole('dialog')).toHaveTextContent('two');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('refuses boxes without an image, naming what is missing', async () => {
    const { requests } = host(chatOf(call('call_b', 'display_overlay', { overlayData: [{ x: 1, y: 1, width: 2, height: 2 }], style: 'bounding_boxes' })));
    await waitFor(() => expect(responses(requests)).toHaveLength(1));
    expect(responses(requests)[0]).toMatchObject({ status: 'ERROR', error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('sourceImageId') } });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('answers IMAGE_UNAVAILABLE for an attachment the engine does not have', async () => {
    const sha = 'a'.repeat(64);
    const { requests } = host(chatOf(call('call_i', 'display_overlay', { sourceImageId: sha, overlayData: [{ x: 1, y: 1, width: 2, height: 2 }] })));
    await waitFor(() => expect(responses(requests)).toHaveLength(1));
    expect(requests.some((r) => r.method === 'GET' && r.path === `/v1/attachments/${sha}`)).toBe(true);
    expect(responses(requests)[0]).toMatchObject({ status: 'ERROR', error: { code: 'IMAGE_UNAVAILABLE' } });
    await act(async () => {});
  });
});
