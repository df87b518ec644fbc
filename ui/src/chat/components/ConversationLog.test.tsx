import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../../i18n';
import type { StoredMessage } from '../../transport/client';
import { initialSessionState } from '../sessionState';
import type { ChatSession } from '../useChatSession';
import { forgetMeasuredRows } from '../useVirtualRows';
import { ConversationLog } from './ConversationLog';

/** `turns` questions and answers, stored: ids q0, a0, q1, a1… */
function history(turns: number): StoredMessage[] {
  const out: StoredMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ id: `q${i}`, conversation_id: 'c', parent_id: i === 0 ? null : `a${i - 1}`, depth: 2 * i, message: { role: 'user', content: `Question ${i}` } });
    out.push({ id: `a${i}`, conversation_id: 'c', parent_id: `q${i}`, depth: 2 * i + 1, message: { role: 'assistant', content: `Answer ${i}: it works.\n\n- one\n- two` } });
  }
  return out;
}

function sessionOf(messages: StoredMessage[]): ChatSession {
  const nothing = () => Promise.resolve();
  return {
    ...initialSessionState(true),
    history: messages,
    runningId: null,
    chooseModel: () => {},
    select: () => {},
    send: nothing,
    editAndResend: nothing,
    regenerate: nothing,
    resend: nothing,
    retry: nothing,
    switchBranch: nothing,
    refreshList: nothing,
    stop: nothing,
    answer: nothing,
  };
}

function renderLog(session: ChatSession) {
  const result = render(
    <I18nextProvider i18n={createI18n('en')}>
      <section role="log" aria-label="Messages" data-testid="message-list">
        <ConversationLog session={session} />
      </section>
    </I18nextProvider>,
  );
  return { ...result, log: screen.getByRole('log') };
}

const messagesIn = (log: HTMLElement) => log.querySelectorAll('[data-testid="user-message"], [data-testid="assistant-message"]');

/**
 * jsdom lays nothing out: a layout of the log's own making. The log is VIEW px high at the top of
 * the window with PAD px of padding; the conversation's children sit one under the other with no
 * gap (none in jsdom's style), questions QUESTION px high, answers from 150 to 550 px (far from
 * their estimates, and each its own), spacers as tall as their style says.
 */
const VIEW = 600;
const PAD = 24;
const QUESTION = 60;
const answerHeight = (key: string) => 150 + ((Number(key.slice(1)) * 137) % 400);

function fakeLayout() {
  const scrolled = new WeakMap<Element, number>();
  const isLog = (el: Element) => el.getAttribute('role') === 'log';
  const own = (el: Element): number => {
    if (el instanceof HTMLElement && el.classList.contains('log-row')) {
      const key = el.dataset.rowKey ?? '';
      return key.startsWith('q') ? QUESTION : answerHeight(key);
    }
    if (el instanceof HTMLElement && el.classList.contains('log-spacer')) return Number.parseFloat(el.style.height) || 0;
    return 0;
  };
  const content = (conversation: Element) => [...conversation.children].reduce((sum, child) => sum + own(child), 0);
  const logOf = (el: Element) => el.closest('[role="log"]');
  const scrollHeight = (log: Element) => {
    const conversation = log.querySelector('.conversation');
    return 2 * PAD + (conversation ? content(conversation) : 0);
  };
  vi.spyOn(Element.prototype, 'clientHeight', 'get').mockImplementation(function (this: Element) {
    return isLog(this) ? VIEW : own(this);
  });
  vi.spyOn(Element.prototype, 'scrollHeight', 'get').mockImplementation(function (this: Element) {
    return isLog(this) ? scrollHeight(this) : own(this);
  });
  vi.spyOn(Element.prototype, 'scrollTop', 'get').mockImplementation(function (this: Element) {
    return scrolled.get(this) ?? 0;
  });
  vi.spyOn(Element.prototype, 'scrollTop', 'set').mockImplementation(function (this: Element, value: number) {
    scrolled.set(this, Math.max(0, Math.min(value, scrollHeight(this) - VIEW)));
  });
  vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(function (this: Element) {
    const box = (top: number, height: number) => DOMRect.fromRect({ x: 0, y: top, width: 760, height });
    if (isLog(this)) return box(0, VIEW);
    const log = logOf(this);
    const scroll = log ? (scrolled.get(log) ?? 0) : 0;
    if (this.classList.contains('conversation')) return box(PAD - scroll, content(this));
    const parent = this.parentElement;
    if (log && parent?.classList.contains('conversation')) {
      let top = PAD - scroll;
      for (const sibling of parent.children) {
        if (sibling === this) break;
        top += own(sibling);
      }
      return box(top, own(this));
    }
    return box(0, 0);
  });
  /** Where the row `key` is in the window (its top), if it is in the page. */
  const topOf = (key: string) => document.querySelector(`[data-row-key="${key}"]`)?.getBoundingClientRect().top;
  /** The row in the page at the view's top. */
  const rowAtTop = () =>
    [...document.querySelectorAll<HTMLElement>('[data-row-key]')].find((row) => {
      const { top, bottom } = row.getBoundingClientRect();
      return top <= 0 && bottom > 0;
    });
  return { topOf, rowAtTop, max: (log: Element) => scrollHeight(log) - VIEW };
}

/** A few frames: the rows near the view are put in the page a step a frame. */
const frames = () => new Promise((resolve) => setTimeout(resolve, 120));

async function scrollTo(log: HTMLElement, top: number) {
  await act(async () => {
    log.scrollTop = top;
    log.dispatchEvent(new Event('scroll'));
    await frames();
  });
}

describe('the conversation log', () => {
  beforeEach(() => forgetMeasuredRows());
  afterEach(() => vi.restoreAllMocks());

  it('has every message of a short conversation in the page, as before', () => {
    const { log } = renderLog(sessionOf(history(6)));
    expect(messagesIn(log)).toHaveLength(12);
    expect(log.querySelector('.log-spacer')).toBeNull();
    expect(log.querySelector('[aria-live="off"]')).toBeNull();
    expect(within(log).getByText('Question 0')).toBeInTheDocument();
    expect(within(log).getByTestId('regenerate')).toBeInTheDocument();
  });

  it('opens a 300-message conversation at its end with only the messages near it in the page', () => {
    const { log } = renderLog(sessionOf(history(150)));
    const shown = messagesIn(log).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(30);
    // The end: the last question and answer, and Regenerate under it.
    expect(within(log).getByText('Question 149')).toBeInTheDocument();
    expect(log.querySelector('[data-message-id="a149"]')).not.toBeNull();
    expect(within(log).getByTestId('regenerate')).toBeInTheDocument();
    expect(within(log).queryByText('Question 0')).toBeNull();
    // What is not in the page is a spacer above it.
    expect(log.querySelector('.conversation > .log-spacer:first-child')).not.toBeNull();
    // Stored messages coming into the page are not read out by the log's live region.
    for (const row of log.querySelectorAll('[data-row-key]')) expect(row).toHaveAttribute('aria-live', 'off');
  });

  it('shows the end, then the beginning when scrolled to the top, with the rows measured in between', async () => {
    const layout = fakeLayout();
    const { log } = renderLog(sessionOf(history(150)));
    expect(log.scrollTop).toBe(layout.max(log));
    expect(log.querySelector('[data-message-id="a149"]')).not.toBeNull();
    expect(messagesIn(log).length).toBeLessThan(30);
    // The frame that follows the opening (it goes to the true end) comes before the person scrolls.
    await act(frames);
    expect(log.scrollTop).toBe(layout.max(log));

    await scrollTo(log, 0);
    expect(within(log).getByText('Question 0')).toBeInTheDocument();
    expect(log.querySelector('[data-message-id="a149"]')).toBeNull();
    expect(messagesIn(log).length).toBeLessThan(30);
    expect(log.scrollTop).toBe(0);
  });

  it('keeps what the person reads in place when rows put in the page above it are not as tall as estimated', async () => {
    const layout = fakeLayout();
    const { log } = renderLog(sessionOf(history(150)));
    await act(frames);
    // Up a screen at a time, from the end: rows never drawn before come into the page above the
    // view (answers 150–550 px, not as tall as their estimate)…
    for (let step = 0; step < 12; step++) {
      log.scrollTop -= VIEW;
      const read = layout.rowAtTop();
      expect(read).toBeDefined();
      const key = read?.dataset.rowKey ?? '';
      const before = layout.topOf(key);
      await scrollTo(log, log.scrollTop);
      // …and the row read has not moved.
      expect(layout.topOf(key), `step ${step}, row ${key}`).toBeCloseTo(before ?? Number.NaN, 0);
    }
    // Twelve screens up from the end, the rows in the page are those of about 20 turns before it.
    const first = Number(log.querySelector('[data-row-key]')?.getAttribute('data-row-key')?.slice(1));
    expect(first).toBeLessThan(135);
    expect(messagesIn(log).length).toBeLessThan(30);
  });

  it('goes to the true end with End, and keeps the row with the focus in the page far from the view', async () => {
    const layout = fakeLayout();
    const { log } = renderLog(sessionOf(history(150)));
    await scrollTo(log, 0);
    const edit = within(log).getAllByRole('button', { name: 'Edit' })[0];
    expect(edit).toBeDefined();
    act(() => edit?.focus());
    // Far away from the focused row: it stays in the page, with the focus.
    await scrollTo(log, layout.max(log) / 2);
    expect(edit?.isConnected).toBe(true);
    expect(document.activeElement).toBe(edit);

    await act(async () => {
      fireEvent.keyDown(edit as HTMLElement, { key: 'End' });
      log.dispatchEvent(new Event('scroll'));
      await frames();
    });
    expect(log.scrollTop).toBe(layout.max(log));
    expect(log.querySelector('[data-message-id="a149"]')).not.toBeNull();
    expect(layout.rowAtTop()).toBeDefined();

    await act(async () => {
      fireEvent.keyDown(edit as HTMLElement, { key: 'Home' });
      log.dispatchEvent(new Event('scroll'));
      await frames();
    });
    expect(log.scrollTop).toBe(0);
    expect(within(log).getByText('Question 0')).toBeInTheDocument();
  });
});
