import { useTranslation } from 'react-i18next';
import type { DownloadView } from '../settings/api';
import { formatBytes, formatDuration } from './format';
import { isMoving } from './useLocalModels';
import './localModels.css';

const PHASE_KEYS = {
  starting: 'localModels.phaseStarting',
  checking_partial: 'localModels.phaseChecking',
  downloading: 'localModels.phaseDownloading',
  verifying: 'localModels.phaseVerifying',
  paused: 'localModels.phasePaused',
  failed: 'localModels.phaseFailed',
} as const satisfies Record<DownloadView['phase'], string>;

export interface DownloadActions {
  pause: (file: string) => void;
  resume: (file: string) => void;
  cancel: (file: string) => void;
}

/** One download: a progress bar with bytes, speed and time left, and what can be done with it. */
export function DownloadProgress({ download, actions, busy }: { download: DownloadView; actions: DownloadActions; busy: boolean }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const percent = download.total > 0 ? Math.min(100, Math.floor((download.done / download.total) * 100)) : null;
  const moving = isMoving(download.phase);
  const figures = [
    download.total > 0
      ? t('localModels.bytesOf', { done: formatBytes(download.done, lang), total: formatBytes(download.total, lang) })
      : formatBytes(download.done, lang),
    moving && download.bytes_per_second > 0 ? t('localModels.speed', { speed: formatBytes(download.bytes_per_second, lang) }) : null,
    moving && download.seconds_left != null ? t('localModels.timeLeft', { time: formatDuration(download.seconds_left) }) : null,
  ].filter(Boolean);
  const label = t('localModels.downloadOf', { file: download.file });
  return (
    <div className="local-download" data-testid="local-download" data-file={download.file} data-phase={download.phase}>
      <p className="local-download-head">
        <span className="settings-list-name">{download.file}</span>
        <span className="settings-badge">{t(PHASE_KEYS[download.phase])}</span>
      </p>
      <div
        className="local-progress"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
        aria-valuetext={figures.join(' · ')}
      >
        <div className="local-progress-fill" style={{ width: `${percent ?? 0}%` }} />
      </div>
      <p className="settings-hint" data-testid="local-download-figures">
        {percent !== null && `${percent} % · `}
        {figures.join(' · ')}
      </p>
      {download.problem && (
        <p className="notice notice-error" role="alert">
          {download.problem}
        </p>
      )}
      <div className="settings-actions">
        {moving ? (
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => actions.pause(download.file)}>
            {t('localModels.pause')}
          </button>
        ) : (
          <button type="button" className="button button-primary" disabled={busy} onClick={() => actions.resume(download.file)}>
            {download.phase === 'failed' ? t('localModels.retry') : t('localModels.resume')}
          </button>
        )}
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => actions.cancel(download.file)}>
          {t('localModels.cancel')}
        </button>
      </div>
    </div>
  );
}
