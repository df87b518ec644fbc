import { useEffect, useState, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Part } from '../reducer';

type Thinking = Extract<Part, { kind: 'thinking' }>;

/** Whole seconds from `from` to `to`, never negative (the engine's clock may be a little ahead). */
function seconds(from: number, to: number): number {
  return Math.max(0, Math.round((to - from) / 1000));
}

/**
 * What the model thought: open, with a clock that runs, while it is still thinking; folded to
 * "Thought for N s" once the answer moved on. The person's own open or close wins over both.
 */
export function ThinkingView({ part, live }: { part: Thinking; live: boolean }) {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState<boolean | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [live]);
  const open = chosen ?? live;
  const toggle = (event: MouseEvent) => {
    event.preventDefault();
    setChosen(!open);
  };
  const started = part.startedMs;
  let title: string;
  if (live) {
    title = started === undefined ? t('chat.thinkingNow') : t('chat.thinkingFor', { seconds: seconds(started, now) });
  } else if (started !== undefined && part.lastMs !== undefined) {
    const took = seconds(started, part.lastMs);
    title = took < 1 ? t('chat.thoughtBriefly') : t('chat.thoughtFor', { seconds: took });
  } else {
    title = t('chat.thinking');
  }
  return (
    <details className="thinking" data-testid="thinking" data-live={live} open={open}>
      <summary onClick={toggle} aria-live={live ? 'off' : undefined}>
        {live && <span className="status-dot" aria-hidden="true" />}
        <span data-testid="thinking-title">{title}</span>
      </summary>
      <p className="thinking-text">{part.text}</p>
    </details>
  );
}
