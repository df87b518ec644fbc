import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HIGHLIGHT_ATTRIBUTE, clearHighlight, highlightElement, highlightedName, selectorProblem } from './highlight';

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
  // Kept as values to put back (jsdom has neither), not as methods to call off their objects.
  const original = {
    scrollIntoView: Reflect.get(Element.prototype, 'scrollIntoView') as Element['scrollIntoView'] | undefined,
    matchMedia: Reflect.get(window, 'matchMedia') as Window['matchMedia'] | undefined,
  };

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
    Reflect.set(Element.prototype, 'scrollIntoView', original.scrollIntoView);
    Reflect.set(window, 'matchMedia', original.matchMedia);
    document.body.innerHTML = '';
  });

  it('marks the matching element, says only that it found it, and lets go after the duration', () => {
    reducedMotion(false);
    const outcome = highlightElement({ selector: '#send', style: 'pulse', duration: 2000 });
    expect(outcome).toEqual({
      status: 'SUCCESS',
      result: {
        found: true,
        selector: '#send',
        style: 'pulse',
        requestedStyle: 'pulse',
        durationMs: 2000,
        reducedMotion: false,
      },
    });
    // Nothing of the page's text goes back to the model; the app's own status line names it.
    expect(JSON.stringify(outcome)).not.toContain('Send message');
    expect(highlightedName()).toBe('Send message');
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
    expect(first.status === 'SUCCESS' && first.result).toMatchObject({ found: true, durationMs: 3000, style: 'pulse' });
    expect(highlightedName()).toBe('Message');
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

describe('highlight_element selectors', () => {
  it('refuses selectors a hostile model could stall the page with, before matching them', () => {
    const long = `${'div '.repeat(60)}p`;
    expect(selectorProblem(long)).toMatch(/at most 200/);
    expect(selectorProblem('div:has(p:has(span))')).toMatch(/may not use :has/);
    expect(selectorProblem('p::before')).toMatch(/pseudo-elements/);
    expect(selectorProblem(':not(a):not(b):not(c):not(d):not(e)')).toMatch(/at most 4/);
    expect(selectorProblem('#composer button:first-child:not(.x)')).toBeNull();
    expect(selectorProblem('[aria-label="a:b"]')).toBeNull();
    const outcome = highlightElement({ selector: 'body:has(*)' });
    expect(outcome).toMatchObject({ status: 'ERROR', code: 'INVALID_SELECTOR' });
  });
});
