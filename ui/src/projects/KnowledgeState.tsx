import { useTranslation } from 'react-i18next';
import type { KnowledgeStatus } from './api';

/** More skipped files than this and their list starts folded. */
export const SKIPPED_SHOWN_OPEN = 5;

/**
 * The state of a project's index: what is indexed, what waits, the scan under way ("N of M
 * files, about S s left"), the files left out and why, and how search works now.
 */
export function KnowledgeState({ status }: { status: KnowledgeStatus }) {
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
      {status.retrieval === 'lexical' && <p className="knowledge-note" data-testid="lexical-note">{t('projects.lexical')}</p>}
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
