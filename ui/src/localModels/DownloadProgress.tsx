import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { DownloadView } from '../settings/api';
import type { DownloadFailure } from '../generated/DownloadFailure';
import type { DownloadPhase } from '../generated/DownloadPhase';
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
} as const satisfies Record<DownloadPhase, string>;

export interface DownloadActions {
  pause: (file: string) => void;
  resume: (file: string) => void;
  /** Stops it; `keepPartial` keeps what was downloaded for the next download to go on from. */
  cancel: (file: string, keepPartial: boolean) => void;
}

/** Failures a mirror or a proxy may get past: the hub could not be reached, or turned it away. */
export function mirrorMayHelp(failure: DownloadFailure | null | undefined): boolean {
  return failure?.code === 'hub_unreachable' || failure?.code === 'hub_refused' || failure?.code === 'checksum_mismatch';
}

/** Why a download failed, in the person's language (the engine's English only for the unforeseen). */
export function failureText(t: TFunction, download: DownloadView, lang: string): string | null {
  const failure = download.failure;
  if (!failure) return download.problem;
  const through = failure.proxy ? t('localModels.failedThrough', { proxy: failure.proxy }) : '';
  switch (failure.code) {
    case 'hub_unreachable':
      return t('localModels.failedUnreachable', { hub: failure.hub, through });
    case 'hub_refused':
      return t('localModels.failedRefused', { hub: failure.hub, status: failure.status ?? '?', through });
    case 'not_on_hub':
      return t('localModels.failedNotOnHub', { hub: failure.hub, file: download.file });
    case 'not_enough_space':
      return t('localModels.failedSpace', {
        needed: failure.needed_bytes == null ? '?' : formatBytes(failure.needed_bytes, lang),
        free: failure.free_bytes == null ? '?' : formatBytes(failure.free_bytes, lang),
      });
    case 'checksum_mismatch':
      return t('localModels.failedChecksum', { hub: failure.hub });
    case 'other':
      return t('localModels.failedOther', { problem: download.problem ?? '' });
  }
}

/**
 * One download: a progress bar with bytes, speed and time left, and what can be done with it.
 * `onUseMirror` (when given) leads to the hub address and proxy after a failure they may fix.
 */
export function DownloadProgress({
  download,
  actions,
  busy,
  onUseMirror,
}: {
  download: DownloadView;
  actions: DownloadActions;
  busy: boolean;
  onUseMirror?: () => void;
}) {
  const { t, i18n } = useTranslation();
  const [confirming, setConfirming] = useState(false);
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
  const problem = download.phase === 'failed' || download.problem ? failureText(t, download, lang) : null;
  const kept = formatBytes(download.done, lang);
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
      {problem && (
        <p className="notice notice-error" role="alert" data-testid="local-download-problem">
          {problem}
        </p>
      )}
      {confirming ? (
        <div className="local-confirm" role="group" aria-label={t('localModels.cancelAskLabel', { file: download.file })}>
          <p>{download.done > 0 ? t('localModels.cancelAsk', { size: kept }) : t('localModels.cancelAskEmpty')}</p>
          <div className="settings-actions">
            <button
              type="button"
              className="button button-primary"
              disabled={busy}
              onClick={() => {
                setConfirming(false);
                actions.cancel(download.file, true);
              }}
            >
              {t('localModels.cancelKeep')}
            </button>
            {download.done > 0 && (
              <button
                type="button"
                className="button button-danger"
                disabled={busy}
                onClick={() => {
                  setConfirming(false);
                  actions.cancel(download.file, false);
                }}
              >
                {t('localModels.cancelDelete', { size: kept })}
              </button>
            )}
            <button type="button" className="button button-secondary" onClick={() => setConfirming(false)}>
              {moving ? t('localModels.goOn') : t('localModels.keep')}
            </button>
          </div>
        </div>
      ) : (
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
          {download.phase === 'failed' && onUseMirror && mirrorMayHelp(download.failure) && (
            <button type="button" className="button button-secondary" onClick={onUseMirror}>
              {t('localModels.useMirror')}
            </button>
          )}
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => setConfirming(true)}>
            {t('localModels.cancel')}
          </button>
        </div>
      )}
    </div>
  );
}
