import { Fragment, useEffect, useState, type ReactNode } from 'react';

/** After the window has shown: start-up draws only what it needs. */
const AFTER_START_MS = 250;
/** Between stages: each is laid out in a task of its own, short enough not to hold the page. */
const STAGE_MS = 80;

/**
 * The samples, one small stage at a time: every face (family, size, weight, style) a
 * conversation uses and the glyphs its primary font lacks. WebKitGTK asks fontconfig for each the
 * first time a page lays it out, 10–60 ms apiece on a 2-core machine, so one face a stage (`scripts/figures.mjs`: the
 * selected conversation's bold title held the page as a message was sent, the copy button and a
 * list's bullet as the first code block and list came in). Most needed first.
 */
const STAGES: readonly ReactNode[] = [
  <ul key="sidebar" className="conversation-items">
    <li className="conversation-row">
      <button type="button" className="conversation-item" aria-current="page" tabIndex={-1}>
        Aa
      </button>
    </li>
  </ul>,
  <Fragment key="author">
    <h3 className="message-author">Aa</h3>
    <p className="message-usage">
      Aa <span className="tool-card-name">Aa</span>
    </p>
  </Fragment>,
  <p key="bold">
    <strong>Aa</strong>
  </p>,
  <p key="italic">
    <em>Aa</em>
  </p>,
  <p key="code">
    <code>Aa</code>
  </p>,
  <h2 key="h2">Aa</h2>,
  <h2 key="h2-italic">
    <em>Aa</em>
  </h2>,
  <div key="code-block" className="code-block">
    <button type="button" className="button code-copy" tabIndex={-1}>
      Aa
    </button>
    <pre>
      <code className="hljs">
        <span className="hljs-keyword">Aa</span> Aa
      </code>
    </pre>
  </div>,
  <table key="table">
    <tbody>
      <tr>
        <th>Aa</th>
        <td>Aa</td>
      </tr>
    </tbody>
  </table>,
  // List markers are glyphs of other fonts.
  <ul key="lists">
    <li>
      Aa
      <ul>
        <li>
          Aa
          <ul>
            <li>Aa</li>
          </ul>
        </li>
      </ul>
    </li>
  </ul>,
  <ol key="ol">
    <li>Aa</li>
  </ol>,
  <h1 key="h1">Aa</h1>,
  <h3 key="h3">Aa</h3>,
  <h4 key="h4">Aa</h4>,
  <blockquote key="quote">
    <p>
      Aa <del>Aa</del>
    </p>
  </blockquote>,
  <p key="bold-code">
    <strong>
      <code>Aa</code>
    </strong>
  </p>,
  <p key="italic-code">
    <em>
      <code>Aa</code>
    </em>
  </p>,
  // Comments in code are italic monospace.
  <pre key="comment">
    <code className="hljs">
      <span className="hljs-comment">Aa</span> <strong>Aa</strong>
    </code>
  </pre>,
  <p key="symbols">→ ← ✓ ✗ • … — “Aa” ‘Aa’ × ± ≤ ≥ ≠ °</p>,
  <h5 key="h5">Aa</h5>,
  <h6 key="h6">Aa</h6>,
];

/** How many stages the warm-up lays out (`data-stage` on its element says how many are). */
export const FONT_WARMUP_STAGES = STAGES.length;

/**
 * The samples of `STAGES`, laid out off screen one stage at a time just after start-up (never
 * drawn: hidden and outside the window), so no font is looked up while an answer streams in.
 */
export function FontWarmup() {
  const [shown, setShown] = useState(0);
  useEffect(() => {
    if (shown >= STAGES.length) return;
    const timer = setTimeout(() => setShown((n) => n + 1), shown === 0 ? AFTER_START_MS : STAGE_MS);
    return () => clearTimeout(timer);
  }, [shown]);
  if (shown === 0) return null;
  return (
    <div className="markdown font-warmup" aria-hidden="true" data-testid="font-warmup" data-stage={shown}>
      {STAGES.slice(0, shown)}
    </div>
  );
}
