import { memo, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatSession } from '../useChatSession';
import type { StoredMessage } from '../../transport/client';
import { PendingConsentView } from '../consent/ConsentDialog';
import { FormCard } from '../forms/FormCard';
import { AnswerActions, StoredUserMessage } from '../../conversations/BranchControls';
import { AssistantMessageView } from './AssistantMessageView';
import { CitationScope } from '../citations/CitationScope';
import { Markdown } from './Markdown';
import { UserMessage } from './UserMessage';
import { aheadFor, followBy, roomBelow } from '../follow';
import { useVirtualRows, type RowSpec } from '../useVirtualRows';
import { estimateHeight } from '../virtualLog';
import { placeUnkept } from '../unkeptAnswers';

/** A row of the log: what it shows, built only when it is in the page. */
interface Row extends RowSpec {
  render: () => ReactNode;
}

/** The width rows are estimated at before they are drawn (styles.css `--content-width`). */
const ESTIMATE_WIDTH = 760;

/** Estimates by stored message (each is estimated once, not at every render of a long log). */
const estimates = new WeakMap<StoredMessage, number>();

function estimateOf(stored: StoredMessage): number {
  let estimate = estimates.get(stored);
  if (estimate === undefined) {
    const text = typeof stored.message.content === 'string' ? stored.message.content : '';
    estimate = estimateHeight(text, ESTIMATE_WIDTH, stored.message.role === 'user');
    estimates.set(stored, estimate);
  }
  return estimate;
}

/** A stored answer, drawn again only when it changes (not when other rows come into the page). */
const StoredAnswer = memo(function StoredAnswer({ stored }: { stored: StoredMessage }) {
  const { t } = useTranslation();
  return (
    <article className="message message-assistant" data-testid="assistant-message" data-message-id={stored.id}>
      <h3 className="message-author">{t('chat.assistant')}</h3>
      {/* Its run is not known here: its citations show, unchecked. */}
      <CitationScope runId={null} ended>
        <Markdown text={stored.message.content} />
      </CitationScope>
    </article>
  );
});
const StoredQuestion = memo(StoredUserMessage);
const StoredAnswerActions = memo(AnswerActions);

/** Whether CONTEXT_UPDATE CLEAR_HISTORY took a stored message out of what the model reads. */
function isCleared(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'context_cleared' in message;
}

/**
 * The messages of the conversation: the stored ones of the branch shown (with their versions,
 * Edit and Regenerate), with what their runs' events add (tool cards, thinking, usage), then
 * the turns still being answered, in order. Messages of other branches are not shown; an answer
 * of which nothing was kept shows under its question while it is that question's last word
 * (unkeptAnswers.ts).
 *
 * A long conversation is drawn in part (useVirtualRows.ts): the rows near the view are in the
 * page, the others are spacers of their height. The turns being answered, forms and consents
 * are always in the page.
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
  const busy = session.runningId !== null || Object.keys(chat.forms).length > 0 || Object.keys(chat.consents).length > 0;
  // Regenerate is offered on the last answer once nothing is under way after it.
  const lastId = localTurns.length === 0 && !busy ? history.at(-1)?.id : undefined;

  const [retryError, setRetryError] = useState<string | null>(null);
  /** A Retry pressed and not over yet: a second press would answer the question twice. */
  const [retrying, setRetrying] = useState(false);
  const retryOf = (id: string) =>
    busy || retrying
      ? undefined
      : () => {
          setRetryError(null);
          setRetrying(true);
          session
            .retry(id)
            .catch((err: unknown) => setRetryError(err instanceof Error ? err.message : String(err)))
            .finally(() => setRetrying(false));
        };
  // Retry answers again the question that ends the branch shown; a failure further up is history.
  const endsBranch = (id: string) => localTurns.length === 0 && history.at(-1)?.id === id;
  const unkept = placeUnkept(chat, history, session.offBranch, new Set(localTurns.flatMap((t) => (t.runId ? [t.runId] : []))));

  // The log's rows, in order: each stored message of the branch shown (an answer with its
  // versions and Regenerate under it), then the turns still being answered. `items` counts
  // what the log shows, as the follow logic below reads it: a turn answered counts the same
  // stored as it did live (question and answer), so the stored messages taking the place of the
  // live ones at the end of a run do not take a person who scrolled up down to the end.
  const rows: Row[] = [];
  let items = 0;
  const shown = new Set<string>();
  // CLEAR_HISTORY: what comes before the last cleared message is no longer read by the model.
  const lastCleared = history.findLastIndex((m) => isCleared(m.message));
  for (const [index, stored] of history.entries()) {
    shown.add(stored.id);
    const role = stored.message.role;
    const cleared =
      index === lastCleared ? (
        <p key={`${stored.id}-cleared`} className="history-cleared" role="note" data-testid="history-cleared">
          {t('chat.historyCleared')}
        </p>
      ) : null;
    if (cleared) items += 1;
    if (role === 'user') {
      items += 1;
      rows.push({
        key: stored.id,
        estimate: estimateOf(stored),
        render: () => [<StoredQuestion key={stored.id} session={session} stored={stored} busy={busy} />, cleared],
      });
      // What became of the question when nothing of its answer was kept (a failure, a stop).
      const unkeptId = unkept.under.get(stored.id);
      const message = unkeptId ? chat.messages[unkeptId] : undefined;
      if (unkeptId && message) {
        shown.add(unkeptId);
        items += 1;
        const run = message.runId ? chat.runs[message.runId] : undefined;
        rows.push({
          key: unkeptId,
          estimate: 80,
          render: () => <AssistantMessageView key={unkeptId} message={message} tools={chat.tools} run={run} onRetry={endsBranch(stored.id) ? retryOf(unkeptId) : undefined} />,
        });
      }
    } else if (role === 'assistant') {
      items += 1;
      const live = chat.messages[stored.id];
      const run = live?.runId ? chat.runs[live.runId] : undefined;
      rows.push({
        key: stored.id,
        estimate: estimateOf(stored),
        // An answer whose run still goes on stays in the page, as the turn being answered does.
        pinned: run !== undefined && !run.done,
        render: () => [
          live ? (
            <AssistantMessageView key={stored.id} message={live} tools={chat.tools} run={run} onRetry={endsBranch(stored.id) ? retryOf(stored.id) : undefined} />
          ) : (
            <StoredAnswer key={stored.id} stored={stored} />
          ),
          <StoredAnswerActions key={`${stored.id}-actions`} session={session} stored={stored} last={stored.id === lastId} busy={busy} />,
          cleared,
        ],
      });
    } else if (cleared) {
      rows.push({ key: stored.id, estimate: 40, render: () => cleared });
    }
  }

  // The turns being answered, always in the page.
  const turnsShown = new Set<string>();
  for (const id of chat.messageOrder) {
    if (shown.has(id) || session.offBranch.has(id) || unkept.hidden.has(id)) continue;
    const message = chat.messages[id];
    if (!message) continue;
    const turn = localTurns.find((t) => t.runId !== null && t.runId === message.runId);
    if (turn) {
      turnsShown.add(turn.key);
      items += 1;
      rows.push({
        key: turn.key,
        estimate: estimateHeight(turn.text, ESTIMATE_WIDTH, true),
        pinned: true,
        render: () => <UserMessage key={turn.key} text={turn.text} error={turn.error} errorCode={turn.errorCode} files={turn.files} />,
      });
    }
    items += 1;
    rows.push({
      key: id,
      estimate: 80,
      pinned: true,
      render: () => <AssistantMessageView key={id} message={message} tools={chat.tools} run={message.runId ? chat.runs[message.runId] : undefined} onRetry={retryOf(id)} />,
    });
  }
  for (const turn of localTurns) {
    if (turnsShown.has(turn.key)) continue;
    // No model yet: the way to set one up, right under what could not be sent.
    const withSetup = turn.errorCode === 'NO_MODEL' && setup;
    items += withSetup ? 2 : 1;
    rows.push({
      key: turn.key,
      estimate: estimateHeight(turn.text, ESTIMATE_WIDTH, true),
      pinned: true,
      render: () => [
        <UserMessage key={turn.key} text={turn.text} error={turn.error} errorCode={turn.errorCode} files={turn.files} onResend={turn.error && !busy ? () => void session.resend(turn.key) : undefined} />,
        withSetup ? <div key={`${turn.key}-setup`}>{setup}</div> : null,
      ],
    });
  }

  const count = items + Object.keys(chat.forms).length + Object.keys(chat.consents).length;
  const lastText = chat.lastSeq;
  const streaming = session.runningId !== null;
  const formCount = Object.keys(chat.forms).length;
  const { segments, virtualised, watchConversation, watchRow } = useVirtualRows(rows, {
    streaming,
    // The log scrolled to keep what the person reads in place: not the person scrolling.
    onAdjust: (by) => {
      if (followedTo.current !== null && Number.isFinite(followedTo.current)) followedTo.current += by;
    },
  });

  useLayoutEffect(() => {
    const grew = count !== shownCount.current;
    shownCount.current = count;
    // A new form brings its own title into view (FormCard): the end of the log, below it,
    // must not take the view back.
    const newForm = formCount > shownForms.current;
    shownForms.current = formCount;
    const follow = () => {
      const end = endRef.current;
      const log = end?.closest<HTMLElement>('[role="log"]');
      const conversation = end?.parentElement;
      // While an answer streams, the log holds room below it, reserved at each jump (a height
      // for the whole conversation): the answer grows into it and nothing after the answer
      // moves at every frame, which would be drawn again each time. Otherwise no room.
      if (!streaming && conversation?.style.minHeight) {
        // The room goes: a view at its bottom comes up with it, which is not the person
        // scrolling up (if they were following, they still are).
        const following = log && followedTo.current !== null && log.scrollTop >= followedTo.current - 4;
        conversation.style.minHeight = '';
        if (following && log) followedTo.current = Math.min(followedTo.current ?? 0, log.scrollTop);
      }
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
        // The log's true end, below the marker's margin. Short of it (the marker scrolled into
        // view), the long log took the jump for the person scrolling up and stopped keeping the
        // end as rows grew: a long conversation opened 47 px short of its end, 2 runs in 15.
        if (log) log.scrollTop = log.scrollHeight;
        else end?.scrollIntoView?.({ block: 'end' });
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
    };
    // A jump while an answer streams, before the page draws what was just rendered: in a frame
    // of its own it drew the new text once where it was written and again where the jump took
    // it (a whole view, twice), ~a tenth of the page's busy time while a fast answer streams
    // (`make figures`). Reading where the end is lays the page out now, which the frame would
    // have done anyway. This runs after the virtual log kept its view (its layout effect is
    // declared first), as the frame did. Anything else (a new message, a form, the end of a
    // run) waits for the next frame, where the rows the log brings in are in the page.
    if (streaming && !grew && !newForm) {
      follow();
      return undefined;
    }
    const frame = requestAnimationFrame(follow);
    return () => cancelAnimationFrame(frame);
  }, [count, lastText, streaming, formCount]);

  return (
    <div className="conversation" data-testid="conversation" ref={watchConversation}>
      {segments.map((segment) => {
        if (segment.kind === 'spacer') return <div key={`spacer-${segment.first}`} className="log-spacer" aria-hidden="true" style={{ height: segment.height }} />;
        const row = rows[segment.index];
        // Stored messages coming into the page as the person scrolls are not news: the log's
        // live region does not read them out (the turns being answered it does).
        return row ? (
          <div key={row.key} className="log-row" data-row-key={row.key} ref={watchRow} aria-live={virtualised && !row.pinned ? 'off' : undefined}>
            {row.render()}
          </div>
        ) : null;
      })}
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
