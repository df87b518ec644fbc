import { useTranslation } from 'react-i18next';
import { ContextButton } from '../../inspector/ContextInspector';
import type { AssistantMessage, ChatState, RunInfo } from '../reducer';
import { Markdown } from './Markdown';
import { ToolCardView } from './ToolCardView';

function Graph({ graph }: { graph: NonNullable<AssistantMessage['graph']> }) {
  const { t } = useTranslation();
  const labels = new Map(graph.nodes.map((n) => [n.id, n.label]));
  return (
    <figure className="task-graph" data-testid="task-graph">
      <figcaption>{t('chat.graphLabel')}</figcaption>
      <ol className="task-graph-nodes">
        {graph.nodes.map((n) => {
          const after = graph.edges.filter((e) => e.to === n.id).map((e) => labels.get(e.from) ?? e.from);
          return (
            <li key={n.id} className="task-graph-node" data-state={n.state} data-testid="task-node">
              <span className="task-graph-label">{n.label}</span>
              <span className="badge">{n.state}</span>
              {after.length > 0 && <span className="task-graph-after">← {after.join(', ')}</span>}
            </li>
          );
        })}
      </ol>
    </figure>
  );
}

/** An assistant message as it streams: thinking, text (Markdown), tool cards, plan, usage, errors. */
export function AssistantMessageView({ message, tools, run }: { message: AssistantMessage; tools: ChatState['tools']; run: RunInfo | undefined }) {
  const { t } = useTranslation();
  const live = run !== undefined && !run.done && (run.state === 'running' || run.state === 'initializing' || run.state === 'resumed');
  const empty = message.parts.length === 0;
  const usage = message.usage;
  return (
    <article className="message message-assistant" data-testid="assistant-message" data-message-id={message.id} aria-busy={live}>
      <h3 className="message-author">{t('chat.assistant')}</h3>
      {message.graph && <Graph graph={message.graph} />}
      {message.parts.map((part) => {
        if (part.kind === 'tool') {
          const card = tools[part.id];
          return card ? <ToolCardView key={part.id} card={card} tools={tools} /> : null;
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
