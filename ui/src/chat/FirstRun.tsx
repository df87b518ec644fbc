import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { SettingsApi, type ProviderConfig, type ProviderRow } from '../settings/api';
import { ApiError, type TesseraClient } from '../transport/client';
import { describeError } from '../transport/describeError';
import { FirstRunOffer } from '../localModels/FirstRunOffer';

/** The providers a new person most likely has an account with, in this order. */
const PRESETS = ['openai', 'anthropic', 'deepseek', 'qwen', 'moonshot'] as const;

/** A provider by the name people know it by; one of the person's own by the name they gave it. */
function useProviderName(): (name: string) => string {
  const { t, i18n } = useTranslation();
  return (name) => (i18n.exists(`providerNames.${name}`) ? t(`providerNames.${name}` as 'providerNames.openai') : name);
}

/**
 * With no model set up, the empty chat says so and sets one up without leaving it: pick a
 * provider, paste its key, and Tessera tests the key and makes that provider the default.
 * Or, with no account at all: download a model that runs on this computer.
 */
export function FirstRun({ client, onOpenSettings, onReady }: { client: TesseraClient; onOpenSettings: () => void; onReady?: () => void }) {
  const { t } = useTranslation();
  const nameOf = useProviderName();
  const api = useMemo(() => SettingsApi.of(client), [client]);
  const [ready, setReady] = useState<boolean | null>(null);
  const [rows, setRows] = useState<ProviderRow[]>([]);
  const [local, setLocal] = useState<ProviderConfig[]>([]);
  const [chosen, setChosen] = useState<ProviderRow | null>(null);
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  /** Saving the key met a keyring that cannot be used: the key file is offered. */
  const [keyringDown, setKeyringDown] = useState(false);
  const useKeyFile = useRef<HTMLButtonElement | null>(null);
  const [done, setDone] = useState<string | null>(null);
  /** The key works: the models to pick from, and the one picked. */
  const [models, setModels] = useState<string[] | null>(null);
  const [model, setModel] = useState('');
  const keyId = useId();

  const load = useCallback(async () => {
    try {
      // Asked cheaply first: the providers' list reads every key, which a running app with a
      // model must not do each time the chat is empty.
      const settings = await api.settings();
      if (settings.model?.ready !== false) {
        setReady(settings.model ? true : null);
        return;
      }
      const list = await api.providers();
      setRows(list.providers);
      setReady(list.model.ready);
      if (!list.model.ready) {
        // Found on this machine: used without an account or a key.
        api.localProviders().then(
          (found) => setLocal(found.found),
          () => setLocal([]),
        );
      }
    } catch {
      setReady(null);
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  // The way out is the next thing to do: brought into view (clear of the composer below the
  // panel) and given the keyboard.
  useEffect(() => {
    if (!keyringDown) return;
    useKeyFile.current?.scrollIntoView?.({ block: 'center' });
    useKeyFile.current?.focus({ preventScroll: true });
  }, [keyringDown]);

  if (done) {
    return (
      <p className="notice notice-ok first-run" role="status" data-testid="first-run-done">
        {t('firstRun.done', { provider: done })}
      </p>
    );
  }
  if (ready !== false) return null;

  const presets = PRESETS.flatMap((name) => rows.filter((r) => r.name === name));

  const takeLocal = async (config: ProviderConfig) => {
    setBusy(true);
    setProblem(null);
    try {
      await api.saveProvider(config);
      await api.makeDefault(config.name);
      setDone(config.name);
      onReady?.();
    } catch (error) {
      setProblem(describeError(error, false));
    } finally {
      setBusy(false);
    }
  };

  const setUp = async (event: FormEvent | null, keyFileFirst = false) => {
    event?.preventDefault();
    if (!chosen || !key.trim()) return;
    setBusy(true);
    setProblem(null);
    try {
      if (keyFileFirst) await api.chooseSecretStore('file');
      setKeyringDown(false);
      try {
        await api.setKey(chosen.name, key.trim());
      } catch (error) {
        // No keyring here (no Secret Service, a locked one): said plainly, with the way out.
        if (error instanceof ApiError && error.code === 'KEYRING_UNAVAILABLE') {
          setKeyringDown(true);
          return;
        }
        throw error;
      }
      setKey('');
      const check = await api.check(chosen.name);
      if (!check.ok) {
        setProblem(check.message ?? t('firstRun.checkFailed'));
        return;
      }
      // What the provider serves, the preset's own models first (a long list is cut short).
      const served = await api.models(chosen.name).then(
        (list) => list.map((m) => m.id),
        () => [] as string[],
      );
      const all = [...new Set([...(chosen.default_model ? [chosen.default_model] : []), ...chosen.models, ...served])].slice(0, 200);
      setModels(all);
      setModel(chosen.default_model ?? all[0] ?? '');
    } catch (error) {
      setProblem(describeError(error, false));
    } finally {
      setBusy(false);
    }
  };

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen || !model) return;
    setBusy(true);
    setProblem(null);
    try {
      if (model !== chosen.default_model) await api.saveProvider({ ...chosen.config, default_model: model });
      await api.makeDefault(chosen.name);
      setDone(`${nameOf(chosen.name)} · ${model}`);
      onReady?.();
    } catch (error) {
      setProblem(describeError(error, false));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="first-run" aria-labelledby={`${keyId}-title`} data-testid="first-run">
      <h2 id={`${keyId}-title`} className="first-run-title">
        {t('firstRun.title')}
      </h2>
      <p className="first-run-body">{t('firstRun.body')}</p>
      {chosen === null && local.length > 0 && (
        <div className="first-run-choices" role="group" aria-label={t('firstRun.onThisMachine')} data-testid="first-run-local">
          {local.map((config) => (
            <button key={config.name} type="button" className="button button-primary" disabled={busy} onClick={() => void takeLocal(config)}>
              {t('firstRun.useLocal', { name: config.name, model: config.default_model ?? '' })}
            </button>
          ))}
        </div>
      )}
      {chosen === null && (
        <FirstRunOffer
          api={api}
          busy={busy}
          onReady={(file) => {
            setDone(t('firstRun.onThisComputer', { file }));
            onReady?.();
          }}
        />
      )}
      {chosen === null && problem && (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      )}
      {chosen === null ? (
        <div className="first-run-choices" role="group" aria-label={t('firstRun.pick')}>
          {presets.map((row) => (
            <button
              key={row.name}
              type="button"
              className="button button-secondary"
              onClick={() => {
                setProblem(null);
                setChosen(row);
              }}
            >
              {nameOf(row.name)}
            </button>
          ))}
          <button type="button" className="button link-button" onClick={onOpenSettings}>
            {t('firstRun.other')}
          </button>
        </div>
      ) : models !== null ? (
        <form className="first-run-key" aria-label={t('firstRun.modelOf', { name: nameOf(chosen.name) })} onSubmit={(e) => void start(e)} data-testid="first-run-model">
          <p className="notice notice-ok" role="status">
            {t('firstRun.keyWorks', { name: nameOf(chosen.name) })}
          </p>
          <label htmlFor={`${keyId}-model`}>{t('firstRun.modelLabel')}</label>
          <select id={`${keyId}-model`} className="settings-input" value={model} onChange={(e) => setModel(e.target.value)}>
            {models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          <p className="settings-hint">{t('firstRun.modelHint')}</p>
          {problem && (
            <p className="notice notice-error" role="alert">
              {problem}
            </p>
          )}
          <div className="settings-actions">
            <button type="submit" className="button button-primary" disabled={busy || !model}>
              {t('firstRun.start')}
            </button>
          </div>
        </form>
      ) : (
        <form className="first-run-key" aria-label={t('firstRun.keyOf', { name: nameOf(chosen.name) })} onSubmit={(e) => void setUp(e)}>
          <p className="first-run-provider" aria-hidden="true">
            {t('firstRun.keyOf', { name: nameOf(chosen.name) })}
          </p>
          <label htmlFor={keyId}>{t('firstRun.keyLabel')}</label>
          <input id={keyId} className="settings-input" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
          <p className="settings-hint">{t('firstRun.keyHint')}</p>
          {problem && (
            <p className="notice notice-error" role="alert">
              {problem}
            </p>
          )}
          {keyringDown && (
            <div className="notice notice-warning" role="alert" data-testid="first-run-keyring">
              <p>{t('firstRun.keyringDown')}</p>
              <p className="settings-hint">{t('firstRun.keyFileOffer')}</p>
              <div className="settings-actions">
                <button ref={useKeyFile} type="button" className="button button-secondary" disabled={busy || !key.trim()} onClick={() => void setUp(null, true)}>
                  {busy ? t('firstRun.savingToFile') : t('firstRun.useKeyFile')}
                </button>
              </div>
            </div>
          )}
          <div className="settings-actions">
            <button type="submit" className="button button-primary" disabled={busy || !key.trim()}>
              {busy ? t('firstRun.testing') : t('firstRun.saveAndTest')}
            </button>
            <button
              type="button"
              className="button button-secondary"
              disabled={busy}
              onClick={() => {
                setProblem(null);
                setKeyringDown(false);
                setKey('');
                setChosen(null);
              }}
            >
              {t('firstRun.back')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
