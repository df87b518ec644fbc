import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { KnowledgeEmbedding, KnowledgeStatus } from './api';

/** What the index's controls do; each returns once done (errors are the caller's to show). */
export interface KnowledgeControls {
  pause: () => Promise<unknown>;
  resume: () => Promise<unknown>;
  setEmbedding: (choice: KnowledgeEmbedding | null) => Promise<unknown>;
}

/** More skipped files than this and their list starts folded. */
export const SKIPPED_SHOWN_OPEN = 5;

/**
 * The state of a project's index: what is indexed, what waits, the scan under way ("N of M
 * files, about S s left"), the files left out and why, and how search works now.
 */
export function KnowledgeState({ status, controls }: { status: KnowledgeStatus; controls?: KnowledgeControls | undefined }) {
  const { t } = useTranslation();
  const scan = status.scanning;
  let progress: string | null = null;
  if (scan) {
    const source = scan.source;
    if (scan.total === null) progress = t('projects.scanningCounting', { source, done: scan.done });
    else if (scan.seconds_left === null) progress = t('projects.scanningNoEta', { source, done: scan.done, total: scan.total });
    else progress = t('projects.scanning', { source, done: scan.done, total: scan.total, seconds: Math.max(1, Math.ceil(scan.seconds_left)) });
  }
  const skipped = status.skipped.length > 0 && (
    <ul className="knowledge-skipped-list">
      {status.skipped.map((s) => (
        <li key={s.path} data-testid="skipped-file">
          <span className="knowledge-path">{s.path}</span>
          <span className="knowledge-reason">{t('projects.skippedReason', { reason: s.reason })}</span>
        </li>
      ))}
    </ul>
  );
  return (
    <div className="knowledge-state" data-testid="knowledge-state">
      <p>{t('projects.indexed', { files: status.indexed_files, chunks: status.chunks })}</p>
      <p role="status" data-testid="knowledge-progress">
        {status.idle ? t('projects.idle') : (progress ?? t('projects.pending', { count: status.pending }))}
        {!status.idle && progress && status.pending > 0 && ` · ${t('projects.pending', { count: status.pending })}`}
      </p>
      {status.paused && <p className="notice">{t('projects.paused')}</p>}
      {controls && (status.paused || !status.idle) && (
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => void (status.paused ? controls.resume() : controls.pause())}
          data-testid="knowledge-pause"
        >
          {status.paused ? t('projects.resumeReading') : t('projects.pauseReading')}
        </button>
      )}
      {status.retrieval === 'lexical' && <p className="knowledge-note" data-testid="lexical-note">{t('projects.lexical')}</p>}
      {status.embedding_model && (
        <p className="knowledge-note" data-testid="embedding-state">
          {t('projects.embedding', { model: status.embedding_model, done: status.embedded_chunks, total: status.chunks })}
        </p>
      )}
      {status.embed_error && (
        <p className="notice notice-error" role="alert">
          {t('projects.embedFailed', { error: status.embed_error })}
        </p>
      )}
      {controls && <EmbeddingChoice current={status.embedding_model} onChoose={controls.setEmbedding} />}
      {skipped &&
        (status.skipped.length > SKIPPED_SHOWN_OPEN ? (
          <details className="knowledge-skipped">
            <summary>{t('projects.skipped', { count: status.skipped_files })}</summary>
            {skipped}
          </details>
        ) : (
          <div className="knowledge-skipped">
            <h4 className="knowledge-subtitle">{t('projects.skipped', { count: status.skipped_files })}</h4>
            {skipped}
          </div>
        ))}
    </div>
  );
}

/** Choosing the model that embeds the files: a provider Tessera knows and one of its models. */
function EmbeddingChoice({ current, onChoose }: { current: string | null; onChoose: KnowledgeControls['setEmbedding'] }) {
  const { t } = useTranslation();
  const [provider, setProvider] = useState('');
  const [model, setModel] = useState('');
  const providerId = useId();
  const modelId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (provider.trim() && model.trim()) void onChoose({ provider: provider.trim(), model: model.trim() });
  };
  return (
    <details className="knowledge-embedding" data-testid="embedding-choice">
      <summary>{t('projects.embeddingChoose')}</summary>
      <p className="field-hint">{t('projects.embeddingHint')}</p>
      <form onSubmit={submit} className="knowledge-embedding-form">
        <label htmlFor={providerId}>{t('projects.embeddingProvider')}</label>
        <input id={providerId} value={provider} onChange={(e) => setProvider(e.target.value)} placeholder="ollama" autoComplete="off" />
        <label htmlFor={modelId}>{t('projects.embeddingModel')}</label>
        <input id={modelId} value={model} onChange={(e) => setModel(e.target.value)} placeholder="bge-m3" autoComplete="off" />
        <button type="submit" className="button button-secondary button-small" disabled={!provider.trim() || !model.trim()}>
          {t('projects.embeddingSave')}
        </button>
        {current && (
          <button type="button" className="button button-secondary button-small" onClick={() => void onChoose(null)}>
            {t('projects.embeddingOff')}
          </button>
        )}
      </form>
    </details>
  );
}
