/**
 * highlight_element: marks one element of this window for a while so the person sees where
 * something is. The visuals are CSS (`[data-tessera-highlight]` in styles.css); "dim-others"
 * adds a spotlight layer with a hole over the element. Never throws: a bad selector or no match
 * is an ERROR outcome the model can read.
 *
 * The model learns only whether an element was found: nothing of the page's text (a label, a
 * message the person wrote) goes back to it. The selector is bounded in length and kind (no
 * `:has()`, pseudo-classes from a short list) so a hostile one cannot stall the page.
 */
import { HIGHLIGHT_DEFAULT_MS, HIGHLIGHT_MAX_MS, MAX_SELECTOR_CHARS } from './definitions';
import { fail, isRecord, ok, type Outcome } from './result';

export type HighlightStyle = 'pulse' | 'outline' | 'dim-others';
const STYLES: readonly HighlightStyle[] = ['pulse', 'outline', 'dim-others'];

export const HIGHLIGHT_ATTRIBUTE = 'data-tessera-highlight';
/** Pseudo-classes a selector may use: structural and state ones, each cheap to match. */
const PSEUDO_CLASSES = new Set([
  'first-child',
  'last-child',
  'only-child',
  'first-of-type',
  'last-of-type',
  'only-of-type',
  'nth-child',
  'nth-of-type',
  'nth-last-child',
  'nth-last-of-type',
  'not',
  'focus',
  'focus-visible',
  'focus-within',
  'hover',
  'checked',
  'disabled',
  'enabled',
  'empty',
]);

/** Why a selector is refused before it is matched, or null when it may be. */
export function selectorProblem(selector: string): string | null {
  if (selector.length > MAX_SELECTOR_CHARS) return `\`selector\` is ${selector.length} characters; at most ${MAX_SELECTOR_CHARS}`;
  // Quoted attribute values may hold any text, colons included.
  const unquoted = selector.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  for (const match of unquoted.matchAll(/:{1,2}(-?[a-zA-Z][\w-]*)/g)) {
    const [whole, name] = match;
    if (whole.startsWith('::')) return `\`selector\` may not use pseudo-elements (${whole})`;
    if (!PSEUDO_CLASSES.has((name ?? '').toLowerCase())) return `\`selector\` may not use ${whole}; allowed: ${[...PSEUDO_CLASSES].map((p) => `:${p}`).join(', ')}`;
  }
  const nots = unquoted.match(/:not\(/gi)?.length ?? 0;
  if (nots > 4) return '`selector` may use :not() at most 4 times';
  return null;
}
export const SPOTLIGHT_CLASS = 'webtool-spotlight';

export function prefersReducedMotion(win: Window = window): boolean {
  return typeof win.matchMedia === 'function' && win.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

function text(value: string | null | undefined): string {
  return (value ?? '').replace(/\s+/g, ' ').trim();
}

/** The element's accessible name, as far as the page itself says it (aria, labels, text). */
export function accessibleName(element: Element): string {
  const doc = element.ownerDocument;
  const labelledBy = element.getAttribute('aria-labelledby');
  if (labelledBy) {
    const joined = text(
      labelledBy
        .split(/\s+/)
        .map((id) => doc.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
    if (joined) return joined;
  }
  const label = text(element.getAttribute('aria-label'));
  if (label) return label;
  if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) {
    const fromLabels = text(Array.from(element.labels ?? [], (l) => l.textContent ?? '').join(' '));
    if (fromLabels) return fromLabels;
    const placeholder = 'placeholder' in element ? text(element.placeholder) : '';
    if (placeholder) return placeholder;
  }
  if (element instanceof HTMLImageElement && text(element.alt)) return text(element.alt);
  const title = text(element.getAttribute('title'));
  const content = text(element.textContent);
  const name = content || title;
  return name.length > 80 ? `${name.slice(0, 79)}…` : name;
}

interface Active {
  element: Element;
  spotlight: HTMLElement | null;
  timer: ReturnType<typeof setTimeout>;
  detach: () => void;
}

let active: Active | null = null;

/** Takes the current highlight away (a new one replaces it). */
export function clearHighlight(): void {
  if (!active) return;
  clearTimeout(active.timer);
  active.element.removeAttribute(HIGHLIGHT_ATTRIBUTE);
  active.element.removeAttribute('data-tessera-highlight-motion');
  active.spotlight?.remove();
  active.detach();
  active = null;
}

function place(spotlight: HTMLElement, element: Element) {
  const rect = element.getBoundingClientRect();
  const pad = 4;
  spotlight.style.top = `${rect.top - pad}px`;
  spotlight.style.left = `${rect.left - pad}px`;
  spotlight.style.width = `${rect.width + 2 * pad}px`;
  spotlight.style.height = `${rect.height + 2 * pad}px`;
}

export interface HighlightOptions {
  root?: Document;
  reducedMotion?: boolean;
}

export function highlightElement(args: unknown, options: HighlightOptions = {}): Outcome {
  const doc = options.root ?? document;
  if (!isRecord(args)) return fail('INVALID_ARGUMENTS', 'the arguments must be an object with a `selector`');
  const selector = args['selector'];
  if (typeof selector !== 'string' || !selector.trim()) return fail('INVALID_ARGUMENTS', '`selector` must be a non-empty CSS selector');
  const problem = selectorProblem(selector);
  if (problem) return fail('INVALID_SELECTOR', problem);
  const style = args['style'] ?? 'pulse';
  if (typeof style !== 'string' || !STYLES.includes(style as HighlightStyle)) {
    return fail('INVALID_ARGUMENTS', `\`style\` must be one of ${STYLES.join(', ')}, not ${JSON.stringify(style)}`);
  }
  const rawDuration = args['duration'] ?? HIGHLIGHT_DEFAULT_MS;
  if (typeof rawDuration !== 'number' || !Number.isFinite(rawDuration) || rawDuration < 0) {
    return fail('INVALID_ARGUMENTS', '`duration` must be milliseconds (a number from 0)');
  }
  const duration = Math.min(Math.round(rawDuration), HIGHLIGHT_MAX_MS);

  let element: Element | null;
  try {
    element = doc.querySelector(selector);
  } catch (error) {
    return fail('INVALID_SELECTOR', `\`${selector}\` is not a valid CSS selector${error instanceof Error ? `: ${error.message}` : ''}`);
  }
  if (!element) return fail('NOT_FOUND', `no element of the Tessera window matches \`${selector}\``);

  const reduced = options.reducedMotion ?? prefersReducedMotion(doc.defaultView ?? window);
  clearHighlight();
  if (typeof element.scrollIntoView === 'function') {
    element.scrollIntoView({ block: 'center', inline: 'nearest', behavior: reduced ? 'auto' : 'smooth' });
  }
  // A pulse is motion: with reduced motion the element gets a steady outline instead.
  const shown: HighlightStyle = style === 'pulse' && reduced ? 'outline' : (style as HighlightStyle);
  element.setAttribute(HIGHLIGHT_ATTRIBUTE, shown);
  element.setAttribute('data-tessera-highlight-motion', reduced ? 'reduce' : 'full');

  let spotlight: HTMLElement | null = null;
  let detach = () => {};
  if (shown === 'dim-others') {
    const layer = doc.createElement('div');
    layer.className = SPOTLIGHT_CLASS;
    layer.setAttribute('aria-hidden', 'true');
    layer.dataset['testid'] = 'webtool-spotlight';
    doc.body.append(layer);
    place(layer, element);
    const target = element;
    const follow = () => place(layer, target);
    const win = doc.defaultView ?? window;
    win.addEventListener('scroll', follow, true);
    win.addEventListener('resize', follow);
    detach = () => {
      win.removeEventListener('scroll', follow, true);
      win.removeEventListener('resize', follow);
    };
    spotlight = layer;
  }
  const timer = setTimeout(clearHighlight, duration);
  active = { element, spotlight, timer, detach };

  return ok({
    found: true,
    selector,
    style: shown,
    requestedStyle: style,
    durationMs: duration,
    reducedMotion: reduced,
  });
}

/** The accessible name of what is highlighted now, for the app's own status line (never the model's). */
export function highlightedName(): string {
  if (!active) return '';
  return accessibleName(active.element) || active.element.tagName.toLowerCase();
}
