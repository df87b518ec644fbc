import { useEffect, useState } from 'react';

/** After the window has shown: start-up draws only what it needs. */
const AFTER_START_MS = 250;

/**
 * A few words in every face a conversation uses (its authors' labels, usage lines, tool names, and
 * in answers code, bold, italic, headings, a table), laid out off
 * screen just after start-up. WebKitGTK looks a font up (fontconfig) the first time a page uses
 * it: done while an answer streams in, the first code block or table held the page for 60–100 ms
 * (scripts/figures.mjs); done here, nothing is waiting for it.
 */
export function FontWarmup() {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), AFTER_START_MS);
    return () => clearTimeout(timer);
  }, []);
  if (!shown) return null;
  return (
    <div className="markdown font-warmup" aria-hidden="true" data-testid="font-warmup">
      <h3 className="message-author">Aa</h3>
      <p className="message-usage">
        Aa <span className="tool-card-name">Aa</span>
      </p>
      <h2>
        Aa <em>Aa</em>
      </h2>
      <p>
        Aa <strong>Aa</strong> <em>Aa</em> <code>Aa</code>
      </p>
      <pre>
        <code className="hljs">
          <span className="hljs-keyword">Aa</span> Aa
        </code>
      </pre>
      <table>
        <tbody>
          <tr>
            <th>Aa</th>
            <td>Aa</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
