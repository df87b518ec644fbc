import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HIGHLIGHT_ATTRIBUTE, clearHighlight, highlightElement } from './highlight';

function reducedMotion(reduce: boolean) {
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) =>
      ({
        matches: reduce && query.includes('prefers-reduced-motion: reduce'),
        media: query,
        onchange: null,
        addEventListener: () => {},
        removeEventListener: () => {},
        addListener: () => {},
        removeListener: () => {},
        dispatchEvent: () => false,
      }) as MediaQueryList,
  );
}

describe('highlight_element', () => {
  let scrolled: ScrollIntoViewOptions[];
  const original = { scrollIntoView: Element.prototype.scrollIntoView, matchMedia: window.matchMedia };

  beforeEach(() => {
    vi.useFakeTimers();
    scrolled = [];
    // jsdom lays nothing out, so it has no scrollIntoView: record what the tool asks for.
    Element.prototype.scrollIntoView = function (this: Element, options?: boolean | ScrollIntoViewOptions) {
      scrolled.push(typeof options === 'object' ? options : {});
    };
    document.body.innerHTML = `
      <main>
        <label for="msg">Message</label><textarea id="msg"></textarea>
        <button id="send" aria-label="Send message">➤</button>
        <section id="empty"></section>
      </main>`;
    // jsdom has no matchMedia either: reducedMotion() below answers for it.
    window.matchMedia = original.matchMedia ?? (() => ({ matches: false }) as MediaQueryList);
  });

  afterEach(() => {
    clearHighlight();
    vi.useRealTimers();
    vi.restoreAllMocks();
    Element.prototype.scrollIntoView = original.scrollIntoView;
    window.matchMedia = original.matchMedia;
    document.body.innerHTML = '';
  });

  it('marks the matching element, says what it is, and lets go after the duration', () => {
    reducedMotion(false);
    const outcome = highlightElement({ selector: '#send', style: 'pulse', duration: 2000 });
    expect(outcome).toEqual({
      status: 'SUCCESS',
      result: expect.objectContaining({
        highlighted: { tag: 'button', name: 'Send message', id: 'send' },
        style: 'pulse',
        durationMs: 2000,
        reducedMotion: false,
      }),
    });
    const send = document.getElementById('send');
    expect(send).toHaveAttribute(HIGHLIGHT_ATTRIBUTE, 'pulse');
    expect(scrolled).toEqual([expect.objectContaining({ behavior: 'smooth', block: 'center' })]);
    vi.advanceTimersByTime(1999);
    expect(send).toHaveAttribute(HIGHLIGHT_ATTRIBUTE);
    vi.advanceTimersByTime(1);
    expect(send).not.toHaveAttribute(HIGHLIGHT_ATTRIBUTE);
  });

  it('names a text field by its label, defaults to 3 s and caps the duration at 30 s', () => {
    reducedMotion(false);
    const first = highlightElement({ selector: 'textarea' });
    expect(first.status === 'SUCCESS' && first.result).toMatchObject({ highlighted: { tag: 'textarea', name: 'Message' }, durationMs: 3000, style: 'pulse' });
    const capped = highlightElement({ selector: 'textarea', duration: 600000 });
    expect(capped.status === 'SUCCESS' && capped.result).toMatchObject({ durationMs: 30000 });
  });

  it('answers an invalid selector or no match with an error, and never throws', () => {
    reducedMotion(false);
    expect(highlightElement({ selector: '##bad[' })).toEqual({ status: 'ERROR', code: 'INVALID_SELECTOR', message: expect.stringContaining('`##bad[` is not a valid CSS selector') });
    expect(highlightElement({ selector: '#nowhere' })).toEqual({ status: 'ERROR', code: 'NOT_FOUND', message: 'no element of the Tessera window matches `#nowhere`' });
    expect(highlightElement({ selector: '' })).toMatchObject({ status: 'ERROR', code: 'INVALID_ARGUMENTS' });
    expect(highlightElement({ selector: '#send', style: 'blink' })).toMatchObject({ status: 'ERROR', code: 'INVALID_ARGUMENTS' });
    expect(highlightElement('#send')).toMatchObject({ status: 'ERROR', code: 'INVALID_ARGUMENTS' });
    expect(document.querySelector(`[${HIGHLIGHT_ATTRIBUTE}]`)).toBeNull();
  });

  it('with reduced motion, a pulse becomes a steady outline and the scroll jumps', () => {
    reducedMotion(true);
    const outcome = highlightElement({ selector: '#send', style: 'pulse' });
    expect(outcome.status === 'SUCCESS' && outcome.result).toMatchObject({ style: 'outline', requestedStyle: 'pulse', reducedMotion: true });
    expect(document.getElementById('send')).toHaveAttribute(HIGHLIGHT_ATTRIBUTE, 'outline');
    expect(scrolled).toEqual([expect.objectContaining({ behavior: 'auto' })]);
  });

  it('dim-others darkens the rest with a spotlight that goes with the highlight; a new highlight replaces the old', () => {
    reducedMotion(false);
    highlightElement({ selector: '#send', style: 'dim-others', duration: 1000 });
    expect(document.querySelectorAll('.webtool-spotlight')).toHaveLength(1);
    highlightElement({ selector: 'textarea', style: 'outline', duration: 1000 });
    expect(document.getElementById('send')).not.toHaveAttribute(HIGHLIGHT_ATTRIBUTE);
    expect(document.querySelectorAll('.webtool-spotlight')).toHaveLength(0);
    highlightElement({ selector: '#send', style: 'dim-others', duration: 1000 });
    vi.advanceTimersByTime(1000);
    expect(document.querySelectorAll('.webtool-spotlight')).toHaveLength(0);
  });
});
