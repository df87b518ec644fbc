import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import { ContextButton } from '../../inspector/ContextInspector';
import { PlanGraph } from '../plan/PlanGraph';
import { isLive, type AssistantMessage, type ChatState, type RunInfo } from '../reducer';
import { Markdown } from './Markdown';
import { ToolCardView } from './ToolCardView';

/** An assistant message as it streams: thinking, text (Markdown), tool cards, plan, usage, errors. */
export function AssistantMessageView({ message, tools, run }: { message: AssistantMessage; tools: ChatState['tools']; run: RunInfo | undefined }) {
  const { t } = useTranslation();
  const live = run !== undefined && !run.done && (run.state === 'running' || run.state === 'initializing' || run.state === 'resumed');
  const empty = message.parts.length === 0;
  const usage = message.usage;
  const runEnded = run !== undefined && (run.done || !isLive(run.state));
  const plans = message.plans ?? [];
  const planParents = new Set(message.parts.flatMap((p) => (p.kind === 'tool' ? [p.id] : [])));
  // A plan is drawn under the call that runs it (the planner's card); one run directly, at the top.
  const plansOf = (parentId: string | null) =>
    plans
      .filter((p) => (parentId === null ? p.parentId === null || !planParents.has(p.parentId) : p.parentId === parentId))
      .map((p) => <PlanGraph key={p.id} plan={p} tools={tools} runEnded={runEnded} />);
  return (
    <article className="message message-assistant" data-testid="assistant-message" data-message-id={message.id} aria-busy={live}>
      <h3 className="message-author">{t('chat.assistant')}</h3>
      {plansOf(null)}
      {message.parts.map((part) => {
        if (part.kind === 'tool') {
          const card = tools[part.id];
          return card ? (
            <Fragment key={part.id}>
              <ToolCardView card={card} tools={tools} />
              {plansOf(part.id)}
            </Fragment>
          ) : null;
        }
        if (part.kind === 'thinking') {
          return (
            <details key={part.key} className="thinking" data-testid="thinking">
              <summary>{t('chat.thinking')}</summary>
              <p className="thinking-text">{part.text}</p>
            </details>
          );
        }
        return <Markdown key={part.key} text={part.text} />;
      })}
      {empty && live && <p className="message-pending">{t('chat.working')}</p>}
      {message.notices.map((n, i) => (
        <p key={i} className="notice" role="note">
          {n.retryable ? t('chat.retrying', { message: n.message }) : t('chat.notice', { message: n.message, code: n.code })}
        </p>
      ))}
      {run?.fatal && (
        <p className="notice notice-error" role="alert" data-testid="run-error">
          {t('chat.runFailed', { message: run.fatal.message, code: run.fatal.code })}
        </p>
      )}
      {run?.state === 'cancelled' && (
        <p className="notice" data-testid="run-cancelled">
          {t('chat.runCancelled')}
        </p>
      )}
      {usage && (
        <p className="message-usage" data-testid="usage">
          {t('chat.usage', { prompt: usage.promptTokens ?? 0, completion: usage.completionTokens ?? 0, latency: usage.latencyMs ?? 0 })}
          {` · ${usage.costUsd !== undefined ? t('chat.cost', { cost: usage.costUsd.toFixed(4) }) : t('chat.costUnknown')}`}
        </p>
      )}
      {!live && <ContextButton runId={message.runId} />}
    </article>
  );
}
