import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatSession } from '../useChatSession';
import { PendingConsentView } from '../consent/ConsentDialog';
import { FormCard } from '../forms/FormCard';
import { AnswerActions, StoredUserMessage } from '../../conversations/BranchControls';
import { AssistantMessageView } from './AssistantMessageView';
import { Markdown } from './Markdown';
import { UserMessage } from './UserMessage';
import { aheadFor, followBy, roomBelow } from '../follow';

/** Whether CONTEXT_UPDATE CLEAR_HISTORY took a stored message out of what the model reads. */
function isCleared(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'context_cleared' in message;
}

/**
 * The messages of the conversation: the stored ones of the branch shown (with their versions,
 * Edit and Regenerate), with what their runs' events add (tool cards, thinking, usage), then
 * the turns still being answered, in order. Messages of other branches are not shown.
 */
export function ConversationLog({ session, extra, setup }: { session: ChatSession; extra?: ReactNode; setup?: ReactNode }) {
  const { t } = useTranslation();
  const { history, chat, localTurns } = session;
  const endRef = useRef<HTMLDivElement | null>(null);
  const shownCount = useRef(0);
  const shownForms = useRef(0);
  /** The log's scroll position after it last followed the answer (null: not yet). */
  const followedTo = useRef<number | null>(null);
  /** When the log last jumped and how tall the content was then: the answer's pace. */
  const lastJump = useRef<{ at: number; height: number } | null>(null);
  const items: ReactNode[] = [];
  const shown = new Set<string>();
  const busy = session.runningId !== null || Object.keys(chat.forms).length > 0 || Object.keys(chat.consents).length > 0;
  // Regenerate is offered on the last answer once nothing is under way after it.
  const lastId = localTurns.length === 0 && !busy ? history.at(-1)?.id : undefined;

  const [retryError, setRetryError] = useState<string | null>(null);
  const retryOf = (id: string) =>
    busy
      ? undefined
      : () => {
          setRetryError(null);
          session.retry(id).catch((err: unknown) => setRetryError(err instanceof Error ? err.message : String(err)));
        };

  // CLEAR_HISTORY: what comes before the last cleared message is no longer read by the model.
  const lastCleared = history.findLastIndex((m) => isCleared(m.message));
  for (const [index, stored] of history.entries()) {
    shown.add(stored.id);
    const role = stored.message.role;
    if (role === 'user') {
      items.push(<StoredUserMessage key={stored.id} session={session} stored={stored} busy={busy} />);
    } else if (role === 'assistant') {
      const live = chat.messages[stored.id];
      items.push(
        live ? (
          <AssistantMessageView key={stored.id} message={live} tools={chat.tools} run={live.runId ? chat.runs[live.runId] : undefined} onRetry={retryOf(stored.id)} />
        ) : (
          <article key={stored.id} className="message message-assistant" data-testid="assistant-message" data-message-id={stored.id}>
            <h3 className="message-author">{t('chat.assistant')}</h3>
            <Markdown text={stored.message.content} />
          </article>
        ),
      );
      items.push(<AnswerActions key={`${stored.id}-actions`} session={session} stored={stored} last={stored.id === lastId} busy={busy} />);
    }
    if (index === lastCleared) {
      items.push(
        <p key={`${stored.id}-cleared`} className="history-cleared" role="note" data-testid="history-cleared">
          {t('chat.historyCleared')}
        </p>,
      );
    }
  }

  const turnsShown = new Set<string>();
  for (const id of chat.messageOrder) {
    if (shown.has(id) || session.offBranch.has(id)) continue;
    const message = chat.messages[id];
    if (!message) continue;
    const turn = localTurns.find((t) => t.runId !== null && t.runId === message.runId);
    if (turn) {
      turnsShown.add(turn.key);
      items.push(<UserMessage key={turn.key} text={turn.text} error={turn.error} errorCode={turn.errorCode} files={turn.files} />);
    }
    items.push(<AssistantMessageView key={id} message={message} tools={chat.tools} run={message.runId ? chat.runs[message.runId] : undefined} onRetry={retryOf(id)} />);
  }
  for (const turn of localTurns) {
    if (turnsShown.has(turn.key)) continue;
    items.push(
      <UserMessage key={turn.key} text={turn.text} error={turn.error} errorCode={turn.errorCode} files={turn.files} onResend={turn.error && !busy ? () => void session.resend(turn.key) : undefined} />,
    );
    // No model yet: the way to set one up, right under what could not be sent.
    if (turn.errorCode === 'NO_MODEL' && setup) items.push(<div key={`${turn.key}-setup`}>{setup}</div>);
  }

  const count = items.length + Object.keys(chat.forms).length + Object.keys(chat.consents).length;
  const lastText = chat.lastSeq;
  const streaming = session.runningId !== null;
  const formCount = Object.keys(chat.forms).length;
  useEffect(() => {
    const grew = count !== shownCount.current;
    shownCount.current = count;
    // A new form brings its own title into view (FormCard): the end of the log, below it,
    // must not take the view back.
    const newForm = formCount > shownForms.current;
    shownForms.current = formCount;
    // In the next frame, where the page is laid out anyway: scrolling now would lay a long
    // answer out a second time, inside the task that has just rendered it.
    const frame = requestAnimationFrame(() => {
      const end = endRef.current;
      const log = end?.closest<HTMLElement>('[role="log"]');
      const conversation = end?.parentElement;
      // While an answer streams, the log holds room below it, reserved at each jump (a height
      // for the whole conversation): the answer grows into it and nothing after the answer
      // moves at every frame, which would be drawn again each time. Otherwise no room.
      if (!streaming && conversation?.style.minHeight) conversation.style.minHeight = '';
      /** How far below the conversation's top its content ends. */
      const contentHeight = () => (end && conversation ? end.getBoundingClientRect().top - conversation.getBoundingClientRect().top : 0);
      const reserve = (height: number, ahead?: number) => {
        if (!streaming || !log || !conversation) return;
        conversation.style.minHeight = `${roomBelow(height, log.getBoundingClientRect().height, ahead)}px`;
      };
      if (newForm && log) {
        // As if the person had scrolled up to it: later events leave the view alone.
        followedTo.current = Number.POSITIVE_INFINITY;
        return;
      }
      if (!end || !log || grew || followedTo.current === null) {
        // Something new in the log (a message sent, an answer begun, a form): show the end.
        lastJump.current = null;
        reserve(contentHeight());
        end?.scrollIntoView?.({ block: 'end' });
        if (log && streaming) log.scrollTop = log.scrollHeight;
        followedTo.current = log ? log.scrollTop : null;
        return;
      }
      // The person scrolled up to read: the answer goes on without pulling them down.
      if (log.scrollTop < followedTo.current - 4) return;
      const view = log.getBoundingClientRect();
      const height = contentHeight();
      const now = performance.now();
      const since = lastJump.current;
      const pace = since && now > since.at ? ((height - since.height) * 1000) / (now - since.at) : 0;
      const ahead = aheadFor(pace, view.height);
      const by = followBy({ viewTop: view.top, viewHeight: view.height, contentEnd: end.getBoundingClientRect().top, ahead });
      if (by > 0) {
        reserve(height, ahead);
        log.scrollTop += by;
        lastJump.current = { at: now, height };
      }
      followedTo.current = log.scrollTop;
    });
    return () => cancelAnimationFrame(frame);
  }, [count, lastText, streaming, formCount]);

  return (
    <div className="conversation" data-testid="conversation">
      {items}
      {Object.values(chat.forms).map((form) => (
        <FormCard key={form.formId} request={form.request} onAnswer={(answer) => session.answer(form.formId, answer)} />
      ))}
      {Object.values(chat.consents).map((consent) => (
        <PendingConsentView
          key={consent.consentId}
          request={consent.request}
          onDecide={(decision) => session.answer(consent.consentId, { decision })}
        />
      ))}
      {retryError && (
        <p className="notice notice-error" role="alert" data-testid="retry-failed">
          {t('chat.retryFailed', { error: retryError })}
        </p>
      )}
      {extra}
      <div ref={endRef} className="log-end" data-testid="log-end" />
    </div>
  );
}
