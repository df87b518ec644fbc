import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UserMessage, attachmentsOf } from '../chat/components/UserMessage';
import type { ChatSession } from '../chat/useChatSession';
import { ChevronLeftIcon, ChevronRightIcon, PencilIcon, RegenerateIcon } from '../components/icons';
import type { StoredMessage } from '../transport/client';
import { describeError } from './useConversationList';

/** "‹ 2 / 3 ›": which of a message's versions is shown, and a way to the others. */
export function BranchSwitcher({ session, id, disabled }: { session: ChatSession; id: string; disabled: boolean }) {
  const { t } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  const ids = session.siblings[id];
  if (!ids || ids.length < 2) return null;
  const at = ids.indexOf(id);
  const go = (to: string | undefined) => {
    if (!to) return;
    setError(null);
    session.switchBranch(to).catch((err: unknown) => setError(describeError(err)));
  };
  return (
    <span className="branch-switcher" data-testid="branch-switcher">
      <button type="button" className="icon-button" aria-label={t('branches.previous')} disabled={disabled || at <= 0} onClick={() => go(ids[at - 1])}>
        <ChevronLeftIcon />
      </button>
      <span className="branch-position" data-testid="branch-position">
        {t('branches.position', { index: at + 1, count: ids.length })}
      </span>
      <button type="button" className="icon-button" aria-label={t('branches.next')} disabled={disabled || at >= ids.length - 1} onClick={() => go(ids[at + 1])}>
        <ChevronRightIcon />
      </button>
      {error && (
        <span className="notice notice-error" role="alert">
          {t('branches.failed', { error })}
        </span>
      )}
    </span>
  );
}

/** Room kept between an opened edit box and the edges of the log's view. */
const REVEAL_MARGIN = 12;

/** Scrolls the log so that all of `box` is in its view (its top first, when it is taller). */
function revealInLog(box: HTMLElement) {
  const log = box.closest<HTMLElement>('[role="log"]');
  if (!log) return;
  const view = log.getBoundingClientRect();
  const r = box.getBoundingClientRect();
  let by = 0;
  if (r.bottom > view.bottom - REVEAL_MARGIN) by = r.bottom - view.bottom + REVEAL_MARGIN;
  if (r.top - by < view.top + REVEAL_MARGIN) by = r.top - view.top - REVEAL_MARGIN;
  if (Math.abs(by) >= 1) log.scrollTop += by;
}

/** A stored message of the person's: its versions, and Edit, which resends it on a branch of its own. */
export function StoredUserMessage({ session, stored, busy }: { session: ChatSession; stored: StoredMessage; busy: boolean }) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(stored.message.content);
  const field = useRef<HTMLTextAreaElement | null>(null);
  useEffect(() => {
    if (!editing) return;
    const input = field.current;
    // The field alone was scrolled to only when none of it showed: a box opened from a question
    // cut by the log's top edge sat under the header, its buttons under the composer at the
    // bottom. All of it is brought into view, now and once the log has measured the taller row.
    input?.focus({ preventScroll: true });
    input?.setSelectionRange(input.value.length, input.value.length);
    const box = input?.closest<HTMLElement>('[data-testid="user-message-edit"]');
    if (!box) return;
    revealInLog(box);
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => revealInLog(box));
    });
    return () => cancelAnimationFrame(frame);
  }, [editing]);

  if (editing) {
    const text = draft.trim();
    const send = () => {
      if (!text || busy) return;
      setEditing(false);
      void session.editAndResend(stored.id, text);
    };
    return (
      <article className="message message-user message-editing" data-testid="user-message-edit">
        <h3 className="message-author">{t('chat.you')}</h3>
        <textarea
          ref={field}
          className="message-edit-input"
          aria-label={t('branches.editLabel')}
          title={t('branches.editHint')}
          value={draft}
          rows={Math.min(8, Math.max(2, draft.split('\n').length))}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              send();
            } else if (event.key === 'Escape') {
              event.preventDefault();
              setEditing(false);
            }
          }}
        />
        <div className="message-actions">
          <button type="button" className="button" onClick={() => setEditing(false)}>
            {t('branches.cancel')}
          </button>
          <button type="button" className="button button-primary" disabled={!text || busy} onClick={send}>
            {t('branches.resend')}
          </button>
        </div>
      </article>
    );
  }
  return (
    <UserMessage text={stored.message.content} attachments={attachmentsOf(stored.message)}>
      <div className="message-actions">
        <BranchSwitcher session={session} id={stored.id} disabled={busy} />
        <button
          type="button"
          className="icon-button"
          aria-label={t('branches.edit')}
          title={t('branches.edit')}
          disabled={busy}
          data-testid="edit-message"
          onClick={() => {
            setDraft(stored.message.content);
            setEditing(true);
          }}
        >
          <PencilIcon />
        </button>
      </div>
    </UserMessage>
  );
}

/** Under a stored answer: its versions and, for the last answer, Regenerate. */
export function AnswerActions({ session, stored, last, busy }: { session: ChatSession; stored: StoredMessage; last: boolean; busy: boolean }) {
  const { t } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  const hasVersions = (session.siblings[stored.id]?.length ?? 0) > 1;
  if (!last && !hasVersions) return null;
  return (
    <div className="message-actions answer-actions" data-testid="answer-actions" data-message-id={stored.id}>
      <BranchSwitcher session={session} id={stored.id} disabled={busy} />
      {last && (
        <button
          type="button"
          className="icon-button"
          aria-label={t('branches.regenerate')}
          title={t('branches.regenerate')}
          disabled={busy}
          data-testid="regenerate"
          onClick={() => {
            setError(null);
            session.regenerate(stored.id).catch((err: unknown) => setError(describeError(err)));
          }}
        >
          <RegenerateIcon />
        </button>
      )}
      {error && (
        <span className="notice notice-error" role="alert">
          {t('branches.failed', { error })}
        </span>
      )}
    </div>
  );
}
