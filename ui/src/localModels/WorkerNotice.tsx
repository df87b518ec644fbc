import { useTranslation } from 'react-i18next';
import type { LocalModelsView } from '../settings/api';

/** The program that runs local models: missing, running (with a way to free its memory), or stopped by itself. */
export function WorkerNotice({ view, onStop, busy }: { view: LocalModelsView; onStop: () => void; busy: boolean }) {
  const { t, i18n } = useTranslation();
  if (!view.worker_found) {
    return (
      <p className="notice notice-warning" role="status" data-testid="local-worker-missing">
        {t('localModels.workerMissing', { program: view.worker_program })}
      </p>
    );
  }
  const worker = view.worker;
  switch (worker.state) {
    case 'not_running':
      return null;
    case 'running':
      return (
        <div className="notice notice-ok local-worker" role="status" data-testid="local-worker">
          <p>{t('localModels.workerRunning', { model: worker.model, tokens: new Intl.NumberFormat(i18n.language).format(worker.n_ctx) })}</p>
          <button type="button" className="button button-secondary" disabled={busy} onClick={onStop}>
            {t('localModels.unload')}
          </button>
        </div>
      );
    case 'died':
      return (
        <div className="notice notice-warning local-worker" role="alert" data-testid="local-worker">
          <p>{t('localModels.workerDied', { model: worker.model, status: worker.status })}</p>
          {worker.said && (
            <details>
              <summary>{t('localModels.workerLog')}</summary>
              <pre className="local-worker-log">{worker.said}</pre>
            </details>
          )}
        </div>
      );
  }
}
