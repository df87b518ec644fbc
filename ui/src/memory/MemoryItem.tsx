import { useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { InlineConfirm } from '../components/InlineConfirm';
import { memoryErrorText, type Memory, type MemoriesApi } from './api';

/** A stored timestamp as the person reads it (the stored text when it is not a date). */
export function when(timestamp: string, language: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  return date.toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Where a memory came from, as the panel can name it. */
export interface MemorySource {
  /** The conversation's title (null: the conversation is no longer listed). */
  title: string | null;
  /** Opens it (absent: it cannot be opened from here). */
  open?: (() => void) | undefined;
}

export interface MemoryItemProps {
  api: MemoriesApi;
  memory: Memory;
  /** The project's name, for a project's memory. */
  projectName: string | null;
  /** The conversation it was saved in (null: saved outside one). */
  source: MemorySource | null;
  onEdited: (memory: Memory) => void;
  onForgotten: (memory: Memory) => void;
}

/**
 * One memory: its text, where it applies, where and when it was saved; its text edited in
 * place (Save, or Ctrl+Enter; Cancel, or Escape) and forgotten after a question.
 */
export function MemoryItem({ api, memory, projectName, source, onEdited, onForgotten }: MemoryItemProps) {
  const { t, i18n } = useTranslation();
  const [draft, setDraft] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const editRef = useRef<HTMLButtonElement | null>(null);
  const textRef = useRef<HTMLTextAreaElement | null>(null);
  /** Where the keyboard goes once the text is no longer being edited. */
  const backToEdit = useRef(false);
  const textId = useId();
  const errorId = useId();
  const editing = draft !== null;

  useLayoutEffect(() => {
    if (editing) {
      textRef.current?.focus();
    } else if (backToEdit.current) {
      backToEdit.current = false;
      editRef.current?.focus();
    }
  }, [editing]);

  const stopEditing = () => {
    backToEdit.current = true;
    setDraft(null);
    setError(null);
  };

  const save = async (event?: FormEvent) => {
    event?.preventDefault();
    if (draft === null || saving) return;
    setSaving(true);
    setError(null);
    try {
      const changed = await api.edit(memory.id, draft);
      onEdited(changed);
      stopEditing();
    } catch (err) {
      setError(memoryErrorText(t, err));
    } finally {
      setSaving(false);
    }
  };

  const onTextKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      // Cancels the edit, not the whole panel.
      event.preventDefault();
      event.stopPropagation();
      stopEditing();
    } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void save();
    }
  };

  const scopeText =
    memory.scope === 'project'
      ? t('memory.scopeProjectNamed', { name: projectName ?? t('projects.unknownProject') })
      : memory.scope === 'conversation'
        ? t('memory.scopeConversation')
        : t('memory.scopeEverywhere');
  const changed = memory.updated_at !== memory.created_at;

  return (
    <li className="memory-item" data-testid="memory-item" data-memory-id={memory.id} data-scope={memory.scope}>
      <div className="memory-meta">
        <span className={`memory-scope memory-scope-${memory.scope}`} data-testid="memory-scope">
          {scopeText}
        </span>
        {memory.key && <span className="memory-key">{memory.key}</span>}
        <span className="memory-when" data-testid="memory-when">
          {changed ? t('memory.changedAt', { when: when(memory.updated_at, i18n.language) }) : t('memory.savedAt', { when: when(memory.created_at, i18n.language) })}
        </span>
      </div>

      {editing ? (
        <form className="memory-edit" onSubmit={(e) => void save(e)}>
          <label htmlFor={textId} className="visually-hidden">
            {t('memory.editLabel')}
          </label>
          <textarea
            id={textId}
            ref={textRef}
            rows={3}
            value={draft}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onTextKeyDown}
            data-testid="memory-edit-text"
          />
          {error && (
            <p id={errorId} className="notice notice-error" role="alert" data-testid="memory-error">
              {error}
            </p>
          )}
          <div className="memory-actions">
            <button type="submit" className="button button-primary button-small" disabled={saving}>
              {saving ? t('memory.saving') : t('memory.save')}
            </button>
            <button type="button" className="button button-secondary button-small" disabled={saving} onClick={stopEditing}>
              {t('memory.cancel')}
            </button>
            <span className="memory-hint">{t('memory.editHint')}</span>
          </div>
        </form>
      ) : (
        <p className="memory-content" data-testid="memory-content">
          {memory.content}
        </p>
      )}

      <p className="memory-source" data-testid="memory-source">
        {source === null ? (
          <span>{t('memory.savedElsewhere')}</span>
        ) : source.title === null ? (
          <span>{t('memory.savedInGone')}</span>
        ) : (
          <>
            <span>{t('memory.savedIn', { title: source.title })}</span>
            {source.open && (
              <button type="button" className="link-button" aria-label={t('memory.openConversationLabel', { title: source.title })} onClick={source.open}>
                {t('memory.openConversation')}
              </button>
            )}
          </>
        )}
      </p>

      {!editing && (
        <div className="memory-actions">
          <button
            ref={editRef}
            type="button"
            className="button button-secondary button-small"
            aria-label={t('memory.editAria', { text: short(memory.content) })}
            onClick={() => {
              setError(null);
              setDraft(memory.content);
            }}
          >
            {t('memory.edit')}
          </button>
          <InlineConfirm
            label={t('memory.forget')}
            ariaLabel={t('memory.forgetAria', { text: short(memory.content) })}
            question={t('memory.forgetQuestion')}
            confirmText={t('memory.forgetConfirm')}
            keepText={t('memory.keep')}
            onConfirm={async () => {
              setError(null);
              try {
                await api.forget(memory.id);
                onForgotten(memory);
              } catch (err) {
                setError(memoryErrorText(t, err));
              }
            }}
          />
        </div>
      )}
      {!editing && error && (
        <p className="notice notice-error" role="alert" data-testid="memory-error">
          {error}
        </p>
      )}
    </li>
  );
}

/** The start of a memory's text, to tell its buttons apart for a screen reader. */
function short(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
