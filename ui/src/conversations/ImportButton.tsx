import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UploadIcon } from '../components/icons';
import { ApiError, type TesseraClient } from '../transport/client';
import { describeError } from './useConversationList';

/** Problems listed at most; the rest are counted. */
const MAX_PROBLEMS = 8;

type Outcome =
  | { kind: 'imported' | 'importedCopy'; file: string }
  | { kind: 'notJson'; file: string; error: string }
  | { kind: 'invalid'; file: string; problems: string[] }
  | { kind: 'exists'; file: string; title: string; document: unknown }
  | { kind: 'failed'; file: string; error: string };

function problemsOf(error: ApiError): string[] {
  const list = error.details?.['problems'];
  if (!Array.isArray(list)) return [];
  return list.flatMap((p) =>
    p && typeof p === 'object' && !Array.isArray(p) && typeof p['message'] === 'string'
      ? [typeof p['path'] === 'string' && p['path'] ? `${p['path']}: ${p['message']}` : p['message']]
      : [],
  );
}

/**
 * Import: a file picker for a context document or MCP-CP messages (JSON). The new
 * conversation is opened; anything wrong with the file is listed, path by path.
 */
export function ImportButton({ client, onImported }: { client: TesseraClient | null; onImported: (id: string) => void | Promise<void> }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement | null>(null);
  const inputId = useId();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const send = async (file: string, document: unknown, asCopy: boolean) => {
    if (!client) return;
    try {
      const report = await client.importConversation(document, asCopy);
      setOutcome({ kind: asCopy ? 'importedCopy' : 'imported', file });
      await onImported(report.conversation_id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 422 && problemsOf(error).length > 0) {
        setOutcome({ kind: 'invalid', file, problems: problemsOf(error) });
      } else if (error instanceof ApiError && error.status === 409 && error.code === 'ALREADY_EXISTS') {
        const title = error.details?.['title'];
        setOutcome({ kind: 'exists', file, title: typeof title === 'string' ? title : file, document });
      } else {
        setOutcome({ kind: 'failed', file, error: describeError(error) });
      }
    }
  };

  const importFile = async (file: File) => {
    if (!client) return;
    setBusy(true);
    setOutcome(null);
    try {
      let document: unknown;
      try {
        document = JSON.parse(await file.text());
      } catch (error) {
        setOutcome({ kind: 'notJson', file: file.name, error: describeError(error) });
        return;
      }
      await send(file.name, document, false);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  const importCopy = async (file: string, document: unknown) => {
    setBusy(true);
    try {
      await send(file, document, true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="import">
      <label htmlFor={inputId} className="visually-hidden">
        {t('conversations.importLabel')}
      </label>
      <input
        id={inputId}
        ref={input}
        type="file"
        accept=".json,.jsonl,application/json"
        className="visually-hidden"
        tabIndex={-1}
        data-testid="import-file"
        onChange={(event) => {
          const file = event.target.files?.[0];
          if (file) void importFile(file);
        }}
      />
      <button
        type="button"
        className="button sidebar-footer-button"
        disabled={!client || busy}
        title={t('conversations.importLabel')}
        onClick={() => input.current?.click()}
      >
        <UploadIcon />
        <span>{t('conversations.import')}</span>
      </button>
      {outcome && (
        <div
          className={outcome.kind === 'imported' || outcome.kind === 'importedCopy' ? 'notice' : outcome.kind === 'exists' ? 'notice notice-warning' : 'notice notice-error'}
          role={outcome.kind === 'imported' || outcome.kind === 'importedCopy' ? 'status' : 'alert'}
          data-testid="import-outcome"
        >
          {outcome.kind === 'imported' && <p>{t('conversations.imported', { file: outcome.file })}</p>}
          {outcome.kind === 'importedCopy' && <p>{t('conversations.importedCopy', { file: outcome.file })}</p>}
          {outcome.kind === 'exists' && (
            <>
              <p>{t('conversations.importExists', { file: outcome.file, title: outcome.title })}</p>
              <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => void importCopy(outcome.file, outcome.document)}>
                {t('conversations.importAsCopy')}
              </button>{' '}
            </>
          )}
          {outcome.kind === 'notJson' && <p>{t('conversations.importNotJson', { file: outcome.file, error: outcome.error })}</p>}
          {outcome.kind === 'failed' && <p>{t('conversations.importFailed', { file: outcome.file, error: outcome.error })}</p>}
          {outcome.kind === 'invalid' && (
            <>
              <p>{t('conversations.importInvalid', { file: outcome.file })}</p>
              <ul className="import-problems">
                {outcome.problems.slice(0, MAX_PROBLEMS).map((p, i) => (
                  <li key={i}>{p}</li>
                ))}
              </ul>
              {outcome.problems.length > MAX_PROBLEMS && <p>{t('conversations.importMore', { count: outcome.problems.length - MAX_PROBLEMS })}</p>}
            </>
          )}
          <button type="button" className="link-button" onClick={() => setOutcome(null)}>
            {t('conversations.dismiss')}
          </button>
        </div>
      )}
    </div>
  );
}
