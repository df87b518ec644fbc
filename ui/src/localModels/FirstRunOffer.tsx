import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SettingsApi } from '../settings/api';
import { ErrorNotice } from '../settings/fields';
import { DownloadProgress } from './DownloadProgress';
import { formatBytes } from './format';
import { HubSettings } from './HubSettings';
import { useLocalActions } from './useLocalActions';
import { useLocalModels } from './useLocalModels';

/**
 * The first run's "no account" way: download the model recommended for this computer (it
 * becomes the default once whole), or use one already downloaded. Shown only where the program
 * that runs models is installed.
 */
export function FirstRunOffer({ api, onReady, busy: parentBusy }: { api: SettingsApi; onReady: (file: string) => void; busy: boolean }) {
  const { t, i18n } = useTranslation();
  const { view, reload } = useLocalModels(api);
  const { busy, problem, act, downloadActions } = useLocalActions(api, reload);
  const announced = useRef(false);
  // The hub address and proxy, shown here when a failed download asks for them (the same
  // fields as Settings → Models on this computer), so a blocked hub is not a dead end.
  const [hubShown, setHubShown] = useState(0);

  // The download this offer started has ended and made its model the default.
  const ready = view?.files.find((f) => f.default)?.file ?? null;
  useEffect(() => {
    if (ready && !announced.current) {
      announced.current = true;
      onReady(ready);
    }
  }, [ready, onReady]);

  const actions = downloadActions();
  if (!view || !view.worker_found || ready || !actions) return null;

  const recommended = view.catalogue.find((m) => m.recommended) ?? view.catalogue[0];
  const whole = view.files.filter((f) => !f.partial);
  const download = recommended ? view.downloads.find((d) => d.file === recommended.file) : undefined;
  const disabled = busy || parentBusy;

  return (
    <div className="first-run-download" data-testid="first-run-download">
      {whole.map((file) => (
        <button key={file.file} type="button" className="button button-primary" disabled={disabled} onClick={() => void act(() => api.useLocalModel(file.file))}>
          {t('firstRun.useDownloaded', { file: file.file })}
        </button>
      ))}
      {whole.length === 0 && recommended && !download && (
        <>
          <button type="button" className="button button-primary" disabled={disabled} onClick={() => void act(() => api.downloadLocalModel(recommended.id, true))}>
            {t('firstRun.downloadModel', { size: formatBytes(recommended.approx_bytes, i18n.language) })}
          </button>
          <p className="settings-hint">
            {t('firstRun.downloadHint', { name: recommended.name })} {i18n.language.startsWith('zh') ? recommended.good_at_zh : recommended.good_at}
          </p>
        </>
      )}
      {download && <DownloadProgress download={download} actions={actions} busy={disabled} onUseMirror={() => setHubShown((n) => n + 1)} />}
      {hubShown > 0 && (
        <HubSettings api={api} address={view.hub_address} proxy={view.hub_proxy} hub={view.hub} onSaved={() => void reload()} focusSignal={hubShown} />
      )}
      <ErrorNotice message={problem} />
    </div>
  );
}
