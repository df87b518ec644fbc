import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ContextButton } from '../../inspector/ContextInspector';
import { PlanGraph } from '../plan/PlanGraph';
import { isLive, type AssistantMessage, type ChatState, type RunError, type RunInfo } from '../reducer';
import { copyText } from '../../components/clipboard';
import { CitationScope } from '../citations/CitationScope';
import { Markdown } from './Markdown';
import { ThinkingView } from './ThinkingView';
import { ToolCardView } from './ToolCardView';
import { isEngineErrorCode } from '../../i18n/errorCodes';

/**
 * Retries are one line that updates (the latest), not a stack, and go once the run has ended
 * (a "retrying" under the final failure, or under the answer, is no longer true); other notices
 * all show.
 */
function shownNotices(notices: AssistantMessage['notices'], runEnded: boolean): AssistantMessage['notices'] {
  const lastRetry = runEnded ? undefined : notices.filter((n) => n.retryable).at(-1);
  return notices.filter((n) => !n.retryable || n === lastRetry);
}

/** The answer's text, as the person would paste it (its Markdown). */
function answerText(message: AssistantMessage): string {
  return message.parts
    .flatMap((p) => (p.kind === 'text' ? [p.text] : []))
    .join('\n\n')
    .trim();
}

function CopyAnswer({ text }: { text: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  if (!text) return null;
  return (
    <button
      type="button"
      className="button button-small button-secondary copy-answer"
      data-testid="copy-answer"
      onClick={() => {
        copyText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
        setTimeout(() => setState('idle'), 2000);
      }}
    >
      {state === 'copied' ? t('chat.copied') : state === 'failed' ? t('chat.copyFailed') : t('chat.copyAnswer')}
    </button>
  );
}

/**
 * An error the engine reported, in the UI's language when its code is one the UI knows, with
 * the engine's own (English) words as the detail; else those words and the code.
 */
export function EngineError({ code, message }: { code: string; message: string }) {
  const { t } = useTranslation();
  if (!isEngineErrorCode(code)) return <>{t('chat.runFailed', { message, code })}</>;
  return (
    <>
      {t(`engineErrors.${code}`)}
      {/* The engine's own words (English), kept beside their translation for a bug report. */}
      <span className="notice-detail" data-testid="engine-detail" lang="en">
        {message} ({code})
      </span>
    </>
  );
}

/**
 * A retry on its way: when and which attempt, and why in the UI's language when the code is one
 * it knows, the engine's own words beside as the detail.
 */
function RetryNotice({ notice }: { notice: RunError }) {
  const { t } = useTranslation();
  if (!notice.retry) return <>{t('chat.retrying', { message: notice.message })}</>;
  const { attempt, delayMs } = notice.retry;
  // The engine appends this tail to the provider's words; it is said here in the UI's language.
  const tail = ` (retrying in ${delayMs} ms, attempt ${attempt})`;
  const words = notice.message.endsWith(tail) ? notice.message.slice(0, -tail.length) : notice.message;
  const code = notice.code;
  const known = isEngineErrorCode(code);
  return (
    <>
      {t('chat.retryingIn', { seconds: Math.max(1, Math.ceil(delayMs / 1000)), attempt, reason: known ? t(`engineErrors.${code}`) : words })}
      {known && (
        <span className="notice-detail" lang="en">
          {words}
        </span>
      )}
    </>
  );
}

/** An assistant message as it streams: thinking, text (Markdown), tool cards, plan, usage, errors. */
export function AssistantMessageView({
  message,
  tools,
  run,
  onRetry,
}: {
  message: AssistantMessage;
  tools: ChatState['tools'];
  run: RunInfo | undefined;
  /** Offered on a failed answer when nothing else is under way. */
  onRetry?: (() => void) | undefined;
}) {
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
      <CitationScope runId={message.runId} ended={run === undefined || runEnded}>
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
            // Still thinking: the run is live and nothing came after this part yet.
            return <ThinkingView key={part.key} part={part} live={live && part === message.parts.at(-1)} />;
          }
          return <Markdown key={part.key} text={part.text} />;
        })}
      </CitationScope>
      {empty && live && <p className="message-pending">{t('chat.working')}</p>}
      {shownNotices(message.notices, runEnded).map((n, i) => (
        <p key={i} className="notice" role="note" data-testid={n.retryable ? 'retry-notice' : undefined}>
          {n.retryable ? (
            <RetryNotice notice={n} />
          ) : isEngineErrorCode(n.code) ? (
            <EngineError code={n.code} message={n.message} />
          ) : (
            t('chat.notice', { message: n.message, code: n.code })
          )}
        </p>
      ))}
      {run?.fatal && (
        <div className="notice notice-error run-error" role="alert" data-testid="run-error">
          <p>
            <EngineError code={run.fatal.code} message={run.fatal.message} />
          </p>
          {onRetry && (
            <button type="button" className="button button-small button-secondary" data-testid="retry-answer" onClick={onRetry}>
              {t('chat.retry')}
            </button>
          )}
        </div>
      )}
      {run?.state === 'cancelled' && (
        <div className="notice run-cancelled" data-testid="run-cancelled">
          {/* "kept" only where something was: a run stopped while a form waited wrote no text. */}
          <p>{message.parts.some((part) => part.kind === 'text' && part.text.trim() !== '') ? t('chat.runCancelled') : t('chat.runCancelledNothing')}</p>
          {/* Stopped before anything was kept (a form never answered): asked again in one click. */}
          {onRetry && (
            <button type="button" className="button button-small button-secondary" data-testid="retry-answer" onClick={onRetry}>
              {t('chat.retry')}
            </button>
          )}
        </div>
      )}
      {usage && (
        <p className="message-usage" data-testid="usage">
          {!usage.promptTokens && !usage.completionTokens
            ? t('chat.usageNone', { latency: usage.latencyMs ?? 0 })
            : t(usage.estimated ? 'chat.usageEstimated' : 'chat.usage', { prompt: usage.promptTokens ?? 0, completion: usage.completionTokens ?? 0, latency: usage.latencyMs ?? 0 })}
          {` · ${usage.costUsd !== undefined ? t('chat.cost', { cost: usage.costUsd.toFixed(4) }) : t('chat.costUnknown')}`}
        </p>
      )}
      {!live && !empty && <CopyAnswer text={answerText(message)} />}
      {!live && <ContextButton runId={message.runId} />}
    </article>
  );
}
