import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { CatalogueEntry } from '../generated/CatalogueEntry';
import type { LocalFile } from '../generated/LocalFile';
import type { ModelTier } from '../generated/ModelTier';
import type { SettingsApi } from '../settings/api';
import { ErrorNotice, Field, messageOf } from '../settings/fields';
import { DownloadProgress } from './DownloadProgress';
import { formatBytes } from './format';
import { useLocalActions } from './useLocalActions';
import { useLocalModels } from './useLocalModels';
import { ContextChoice } from './ContextChoice';
import { HubSettings } from './HubSettings';
import { canBrowseFiles, pickGgufFile } from './pickFile';
import { WorkerNotice } from './WorkerNotice';

const TIER_KEYS = {
  small: 'localModels.tierSmall',
  medium: 'localModels.tierMedium',
  large: 'localModels.tierLarge',
} as const satisfies Record<ModelTier, string>;

/**
 * Settings → Models on this machine: the recommended models (download, use), the downloads with
 * their progress (pause, resume, cancel), the files on disk and the space they take (use,
 * delete), any GGUF of the hub by name, and the worker that runs them.
 */
export function LocalModelsSection({ api }: { api: SettingsApi | null }) {
  const { t, i18n } = useTranslation();
  const { view, loadError, reload } = useLocalModels(api);
  const { busy, problem, note, act: run, downloadActions } = useLocalActions(api, reload);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [custom, setCustom] = useState('');
  const [ownFile, setOwnFile] = useState('');
  // The file's outcome is said beside its field, not at the top of a long page.
  const [ownFileNote, setOwnFileNote] = useState<string | null>(null);
  const [ownFileProblem, setOwnFileProblem] = useState<string | null>(null);
  const [hubFocus, setHubFocus] = useState(0);

  const actions = downloadActions((file, kept) => (kept ? t('localModels.cancelledKept', { file }) : t('localModels.cancelled', { file })));
  if (!api || !actions) return <p className="settings-hint">{t('settings.notConnected')}</p>;
  const lang = i18n.language;

  const act = (action: () => Promise<unknown>, done?: string) => {
    setConfirming(null);
    return run(action, done);
  };
  const use = (file: string) => void act(() => api.useLocalModel(file), t('localModels.nowDefault', { file }));
  const remove = (file: string) => void act(() => api.removeLocalModel(file), t('localModels.removed', { file }));
  const download = (model: string) => void act(() => api.downloadLocalModel(model, false));
  const chooseContext = (tokens: number | null) =>
    void act(
      () => api.setLocalContext(tokens),
      tokens == null ? t('localModels.contextAutoSet') : t('localModels.contextSet', { tokens: new Intl.NumberFormat(lang).format(tokens) }),
    );

  const submitCustom = (event: FormEvent) => {
    event.preventDefault();
    const model = custom.trim();
    if (!model) return;
    setCustom('');
    download(model);
  };

  const chooseOwnFile = async (path: string) => {
    setOwnFileNote(null);
    setOwnFileProblem(null);
    let used = false;
    await act(async () => {
      try {
        await api.useGgufFile(path);
        used = true;
      } catch (error) {
        setOwnFileProblem(messageOf(error));
      }
    });
    if (used) {
      setOwnFile('');
      setOwnFileNote(t('localModels.nowDefault', { file: path }));
    }
  };

  const submitOwnFile = (event: FormEvent) => {
    event.preventDefault();
    const path = ownFile.trim();
    if (path) void chooseOwnFile(path);
  };

  const browse = async () => {
    setOwnFileProblem(null);
    try {
      const path = await pickGgufFile(t('localModels.browseTitle'), t('localModels.browseFilter'));
      if (path) {
        setOwnFile(path);
        setOwnFileNote(null);
      }
    } catch (error) {
      setOwnFileProblem(messageOf(error));
    }
  };

  if (!view) {
    return loadError ? <ErrorNotice message={t('settings.loadFailed', { error: loadError })} /> : <p className="settings-hint">{t('localModels.loading')}</p>;
  }

  const whole = (file: string) => view.files.find((f) => f.file === file && !f.partial);
  const downloading = (file: string) => view.downloads.some((d) => d.file === file);
  const partial = (file: string) => view.files.some((f) => f.file === file && f.partial);

  const catalogueAction = (model: CatalogueEntry) => {
    const onDisk = whole(model.file);
    if (onDisk) {
      return onDisk.default ? (
        <span className="settings-badge" data-testid="local-in-use">
          {t('localModels.inUse')}
        </span>
      ) : (
        <button type="button" className="button button-primary" disabled={busy} onClick={() => use(model.file)}>
          {t('localModels.use')}
        </button>
      );
    }
    if (downloading(model.file)) return null;
    return (
      <button type="button" className="button button-primary" disabled={busy} onClick={() => download(model.id)}>
        {partial(model.file) ? t('localModels.resumeDownload') : t('localModels.download', { size: formatBytes(model.approx_bytes, lang) })}
      </button>
    );
  };

  const fileActions = (file: LocalFile) => (
    <div className="settings-actions">
      {!file.partial && !file.default && (
        <button type="button" className="button button-primary" disabled={busy} onClick={() => use(file.file)}>
          {t('localModels.use')}
        </button>
      )}
      {file.partial && !downloading(file.file) && file.catalogue_id && (
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => actions.resume(file.file)}>
          {t('localModels.resume')}
        </button>
      )}
      {!downloading(file.file) &&
        (confirming === file.file ? (
          <>
            <button type="button" className="button button-danger" disabled={busy} onClick={() => (file.partial ? actions.cancel(file.file, false) : remove(file.file))}>
              {t('localModels.confirmDelete', { size: formatBytes(file.bytes, lang) })}
            </button>
            <button type="button" className="button button-secondary" onClick={() => setConfirming(null)}>
              {t('localModels.keep')}
            </button>
          </>
        ) : (
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => setConfirming(file.file)}>
            {t('localModels.delete')}
          </button>
        ))}
    </div>
  );

  return (
    <div className="local-models" data-testid="local-models">
      <p className="settings-hint">{t('localModels.intro')}</p>
      <ErrorNotice message={problem} />
      {note && (
        <p className="settings-saved" role="status">
          {note}
        </p>
      )}
      <WorkerNotice view={view} onStop={() => void act(() => api.stopLocalWorker(), t('localModels.unloaded'))} busy={busy} />

      {view.downloads.length > 0 && (
        <section className="settings-group" aria-label={t('localModels.downloads')}>
          <h3 className="settings-group-title">{t('localModels.downloads')}</h3>
          {view.downloads.map((d) => (
            <DownloadProgress key={d.file} download={d} actions={actions} busy={busy} onUseMirror={() => setHubFocus((n) => n + 1)} />
          ))}
        </section>
      )}

      <section className="settings-group" aria-label={t('localModels.catalogue')}>
        <h3 className="settings-group-title">{t('localModels.catalogue')}</h3>
        <ul className="local-catalogue" data-testid="local-catalogue">
          {view.catalogue.map((model) => (
            <li key={model.id} className="local-card" data-model={model.id}>
              <p className="local-card-head">
                <span className="settings-list-name">{model.name}</span>
                {model.recommended && <span className="settings-badge">{t('localModels.recommended')}</span>}
              </p>
              <p className="settings-hint">
                {t(TIER_KEYS[model.tier])} · {formatBytes(model.approx_bytes, lang)} · {model.licence} · {model.repo}
              </p>
              <p>{lang.startsWith('zh') ? model.good_at_zh : model.good_at}</p>
              <div className="settings-actions">{catalogueAction(model)}</div>
            </li>
          ))}
        </ul>
      </section>

      <section className="settings-group" aria-label={t('localModels.onDisk')}>
        <h3 className="settings-group-title">{t('localModels.onDisk')}</h3>
        {view.files.length === 0 ? (
          <p className="settings-hint">{t('localModels.nothingOnDisk')}</p>
        ) : (
          <ul className="settings-list" data-testid="local-files">
            {view.files.map((file) => (
              <li key={`${file.file}${file.partial ? '.partial' : ''}`} className="local-file" data-file={file.file}>
                <p className="local-card-head">
                  <span className="settings-list-name">{file.file}</span>
                  {file.default && <span className="settings-badge">{t('localModels.inUse')}</span>}
                  {file.partial && <span className="settings-badge">{t('localModels.partial')}</span>}
                </p>
                <p className="settings-hint">{formatBytes(file.bytes, lang)}</p>
                {fileActions(file)}
              </li>
            ))}
          </ul>
        )}
        <p className="settings-hint" data-testid="local-space">
          {t('localModels.space', {
            folder: view.folder,
            used: formatBytes(view.used_bytes, lang),
            free: view.free_bytes == null ? '?' : formatBytes(view.free_bytes, lang),
          })}
        </p>
      </section>

      <ContextChoice view={view} busy={busy} onChoose={chooseContext} />

      <section className="settings-group" aria-label={t('localModels.other')}>
        <h3 className="settings-group-title">{t('localModels.other')}</h3>
        <form onSubmit={submitCustom} className="local-custom">
          <Field label={t('localModels.otherLabel')} hint={t('localModels.otherHint', { hub: view.hub })}>
            <input className="settings-input" value={custom} placeholder="OWNER/REPO:FILE.gguf" onChange={(e) => setCustom(e.target.value)} />
          </Field>
          <div className="settings-actions">
            <button type="submit" className="button button-secondary" disabled={busy || !custom.trim()}>
              {t('localModels.downloadOther')}
            </button>
          </div>
        </form>
        <form onSubmit={submitOwnFile} className="local-custom" data-testid="local-own-file">
          <Field label={t('localModels.fileLabel')} hint={canBrowseFiles() ? t('localModels.fileHintBrowse') : t('localModels.fileHint')}>
            <input className="settings-input" value={ownFile} placeholder="/home/…/model.gguf" onChange={(e) => setOwnFile(e.target.value)} />
          </Field>
          <div className="settings-actions">
            {canBrowseFiles() && (
              <button type="button" className="button button-secondary" disabled={busy} onClick={() => void browse()}>
                {t('localModels.browse')}
              </button>
            )}
            <button type="submit" className="button button-secondary" disabled={busy || !ownFile.trim()}>
              {t('localModels.useFile')}
            </button>
          </div>
          <ErrorNotice message={ownFileProblem} />
          {ownFileNote && (
            <p className="settings-saved" role="status">
              {ownFileNote}
            </p>
          )}
        </form>
      </section>

      <HubSettings
        api={api}
        address={view.hub_address}
        proxy={view.hub_proxy}
        hub={view.hub}
        onSaved={() => void reload()}
        focusSignal={hubFocus}
      />
    </div>
  );
}
