import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CheckProblem } from '../generated/CheckProblem';
import type { ModelInfo, ModelStatus, ProviderCheck, ProviderList, ProviderRow, SettingsApi } from './api';
import { isApiError, messageOf } from './fields';
import { KeyForm, ProviderForm } from './ProviderForm';
import { SecretStoreNotice } from './SecretStoreNotice';

function ModelLine({ model }: { model: ModelStatus }) {
  const { t } = useTranslation();
  return (
    <p className={model.ready ? 'settings-hint' : 'notice notice-warning'} data-testid="model-status" role="status">
      {model.ready ? t('providers.modelReady', { provider: model.provider, model: model.model }) : t('providers.modelNotReady', { reason: model.reason ?? t('providers.noDefault') })}
    </p>
  );
}

const PROBLEM_KEYS = {
  auth_failed: 'providers.checkAuthFailed',
  unreachable: 'providers.checkUnreachable',
  timeout: 'providers.checkTimeout',
  unknown_model: 'providers.checkUnknownModel',
  missing_key: 'providers.checkMissingKey',
  http_error: 'providers.checkFailed',
  bad_answer: 'providers.checkFailed',
  failed: 'providers.checkFailed',
} as const satisfies Record<CheckProblem, string>;

function CheckResult({ check }: { check: ProviderCheck }) {
  const { t } = useTranslation();
  if (check.ok) {
    return (
      <p className="notice notice-ok" role="status" data-testid="check-result">
        {t('providers.checkOk', { ms: check.latency_ms ?? 0, n: check.models ?? 0 })}
      </p>
    );
  }
  const key = PROBLEM_KEYS[check.problem ?? 'failed'];
  return (
    <div className="notice notice-error" role="alert" data-testid="check-result">
      <p>{t(key, { model: check.model ?? '' })}</p>
      {check.message && <p className="settings-hint">{check.message}</p>}
    </div>
  );
}

interface DetailProps {
  api: SettingsApi;
  row: ProviderRow;
  onChanged: (message?: string) => void;
  onRemoved: () => void;
}

function ProviderDetail({ api, row, onChanged, onRemoved }: DetailProps) {
  const { t } = useTranslation();
  const [check, setCheck] = useState<ProviderCheck | null>(null);
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const sectionRef = useRef<HTMLElement | null>(null);

  // The list of presets is long: bring the provider just chosen into view.
  useEffect(() => {
    sectionRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);

  const run = async (what: string, step: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError(isApiError(err, 503) ? t('providers.keyringUnavailable', { vars: row.key_env_vars.join(', ') }) : messageOf(err));
    } finally {
      setBusy(null);
    }
  };

  const pickModel = (id: string) =>
    run('pick', async () => {
      await api.saveProvider({ ...row.config, default_model: id });
      onChanged(t('providers.defaultModelSet', { model: id, name: row.name }));
    });

  return (
    <section ref={sectionRef} className="settings-group provider-detail" aria-labelledby="provider-detail-title" data-testid="provider-detail">
      <h3 id="provider-detail-title" className="settings-group-title">
        {row.name}
      </h3>
      <dl className="settings-facts">
        <dt>{t('providers.kind')}</dt>
        <dd>{row.kind}</dd>
        <dt>{t('providers.baseUrl')}</dt>
        <dd>{row.base_url}</dd>
        <dt>{t('providers.defaultModel')}</dt>
        <dd>{row.default_model ?? t('providers.none')}</dd>
      </dl>
      <div className="settings-actions">
        <button type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void run('check', async () => setCheck(await api.check(row.name)))}>
          {busy === 'check' ? t('providers.checking') : t('providers.check')}
        </button>
        <button type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void run('models', async () => setModels(await api.models(row.name)))}>
          {t('providers.listModels')}
        </button>
        <button
          type="button"
          className="button button-secondary"
          disabled={busy !== null || row.default}
          onClick={() =>
            void run('default', async () => {
              await api.makeDefault(row.name);
              onChanged(t('providers.madeDefault', { name: row.name }));
            })
          }
        >
          {row.default ? t('providers.isDefault') : t('providers.makeDefault')}
        </button>
        <button type="button" className="button button-secondary" aria-expanded={editing} onClick={() => setEditing((e) => !e)}>
          {t('providers.edit')}
        </button>
        {row.source !== 'preset' && (
          <button
            type="button"
            className="button button-secondary button-danger"
            disabled={busy !== null}
            onClick={() => {
              if (!window.confirm(t('providers.removeConfirm', { name: row.name }))) return;
              void run('remove', async () => {
                await api.removeProvider(row.name);
                onRemoved();
              });
            }}
          >
            {t('providers.remove')}
          </button>
        )}
      </div>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {check && <CheckResult check={check} />}
      {models && (
        <div className="settings-models">
          <h4 className="settings-subtitle">{t('providers.modelsTitle', { n: models.length })}</h4>
          {models.length === 0 ? (
            <p className="settings-hint">{t('providers.noModels')}</p>
          ) : (
            <ul className="settings-list" aria-label={t('providers.modelsTitle', { n: models.length })}>
              {models.map((m) => (
                <li key={m.id} className="settings-list-row">
                  <span>{m.display_name ?? m.id}</span>
                  {row.default_model === m.id ? (
                    <span className="settings-badge">{t('providers.currentModel')}</span>
                  ) : (
                    <button type="button" className="button button-secondary button-small" disabled={busy !== null} onClick={() => void pickModel(m.id)} aria-label={t('providers.useModelLabel', { model: m.id })}>
                      {t('providers.useModel')}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {editing && (
        <ProviderForm
          api={api}
          initial={row.config}
          models={models?.map((m) => m.id) ?? row.models}
          onSaved={() => {
            setEditing(false);
            onChanged(t('providers.saved', { name: row.name }));
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      {row.requires_key && (
        <KeyForm
          api={api}
          name={row.name}
          hasKey={row.has_key}
          envVars={row.key_env_vars}
          onChanged={() => {
            // A test made with the old key (or none) says nothing true about the new one.
            setCheck(null);
            onChanged();
          }}
        />
      )}
    </section>
  );
}

/** Model providers: the list, adding one, and for the one selected its key, check, models. */
export function ProvidersSection({ api }: { api: SettingsApi | null }) {
  const { t } = useTranslation();
  const [list, setList] = useState<ProviderList | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const reload = useCallback(async () => {
    if (!api) return;
    try {
      setList(await api.providers());
      setLoadError(null);
    } catch (err) {
      setLoadError(messageOf(err));
    }
  }, [api]);

  useEffect(() => {
    void reload();
  }, [reload]);

  if (!api) return <p className="settings-hint">{t('settings.notConnected')}</p>;

  const row = list?.providers.find((p) => p.name === selected) ?? null;
  return (
    <>
      {loadError && (
        <p className="notice notice-error" role="alert">
          {t('settings.loadFailed', { error: loadError })}
        </p>
      )}
      {list && <ModelLine model={list.model} />}
      <SecretStoreNotice api={api} onChanged={() => void reload()} />
      {note && (
        <p className="settings-saved" role="status">
          {note}
        </p>
      )}
      <div className="settings-actions">
        <button type="button" className="button button-primary" aria-expanded={adding} onClick={() => setAdding((a) => !a)}>
          {t('providers.addButton')}
        </button>
      </div>
      {adding && (
        <ProviderForm
          api={api}
          onSaved={(name) => {
            setAdding(false);
            setSelected(name);
            setNote(t('providers.added', { name }));
            void reload();
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      {list && (
        <ul className="settings-list" aria-label={t('providers.listLabel')} data-testid="provider-list">
          {list.providers.map((p) => (
            <li key={p.name} className="settings-list-row">
              <button type="button" className="settings-list-button" aria-current={p.name === selected ? 'true' : undefined} onClick={() => setSelected(p.name === selected ? null : p.name)}>
                <span className="settings-list-name">{p.name}</span>
                <span className="settings-hint">
                  {p.kind} · {p.default_model ?? t('providers.noModel')}
                </span>
              </button>
              {p.default && <span className="settings-badge">{t('providers.defaultBadge')}</span>}
              {p.source !== 'preset' && <span className="settings-badge">{t('providers.savedBadge')}</span>}
            </li>
          ))}
        </ul>
      )}
      {row && (
        <ProviderDetail
          key={row.name}
          api={api}
          row={row}
          onChanged={(message) => {
            setNote(message ?? null);
            void reload();
          }}
          onRemoved={() => {
            setNote(t('providers.removed', { name: row.name }));
            setSelected(null);
            void reload();
          }}
        />
      )}
    </>
  );
}
