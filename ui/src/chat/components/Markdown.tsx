import { useRef, useState, type ComponentPropsWithoutRef } from 'react';
import { useTranslation } from 'react-i18next';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

/** A code block with a copy button (the text as written, not the highlighted markup). */
function CodeBlock(props: ComponentPropsWithoutRef<'pre'>) {
  const { t } = useTranslation();
  const ref = useRef<HTMLPreElement | null>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(ref.current?.textContent ?? '');
      setState('copied');
    } catch {
      setState('failed');
    }
    window.setTimeout(() => setState('idle'), 2000);
  };
  const label = state === 'copied' ? t('chat.copied') : state === 'failed' ? t('chat.copyFailed') : t('chat.copy');
  return (
    <div className="code-block">
      <button type="button" className="button code-copy" onClick={() => void copy()} aria-label={t('chat.copy')} data-testid="copy-code">
        {label}
      </button>
      <pre ref={ref} {...props} />
    </div>
  );
}

/** Links open outside the app, never in its window. */
function Link({ href, children, ...rest }: ComponentPropsWithoutRef<'a'>) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow" {...rest}>
      {children}
    </a>
  );
}

const components: Components = {
  pre: ({ node: _node, ...props }) => <CodeBlock {...props} />,
  a: ({ node: _node, ...props }) => <Link {...props} />,
};

/**
 * Assistant text as Markdown (GFM tables, task lists…). Raw HTML is not rendered and the tree is
 * sanitised (GitHub's schema) before code is highlighted, so nothing a model writes can run.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeSanitize, [rehypeHighlight, { detect: false }]]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
