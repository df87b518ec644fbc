import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProviderConfig, ProviderConfigInput, SettingsApi, WireKind } from './api';
import { Field, FormActions, isApiError, messageOf } from './fields';

type FormField = 'name' | 'kind' | 'base_url' | 'default_model';
type Errors = Partial<Record<FormField | 'form', string>>;

/**
 * Which field a 400 of `POST /v1/providers` is about: the server checks with `tessera provider
 * add`'s rules and names the field (or the provider name) in its message.
 */
export function fieldOfMessage(message: string): FormField | 'form' {
  if (/\bbase_url\b/.test(message)) return 'base_url';
  if (/\b(default_model|fallback_model|models)\b/.test(message)) return 'default_model';
  if (/provider name|\bname\b/.test(message)) return 'name';
  if (/\bkind\b|unknown variant/.test(message)) return 'kind';
  return 'form';
}

type ImagesSaid = 'guess' | 'on' | 'off';

function imagesSaid(config: ProviderConfig | undefined, model: string): ImagesSaid {
  const said = config?.models?.[model]?.image_input;
  return said === true ? 'on' : said === false ? 'off' : 'guess';
}

/** The provider's models with what the person said of `model`'s images (a guess: nothing said). */
function withImages(models: NonNullable<ProviderConfig['models']>, model: string, images: ImagesSaid): NonNullable<ProviderConfig['models']> {
  const settings = { ...(models[model] ?? {}) };
  if (images === 'guess') delete settings.image_input;
  else settings.image_input = images === 'on';
  const rest = { ...models };
  delete rest[model];
  return Object.keys(settings).length > 0 ? { ...rest, [model]: settings } : rest;
}

export interface ProviderFormProps {
  api: SettingsApi;
  /** The configuration being edited; absent: a new provider. */
  initial?: ProviderConfig | undefined;
  /** Models known for the datalist of the default model. */
  models?: string[] | undefined;
  onSaved: (name: string) => void;
  onCancel?: (() => void) | undefined;
}

/** Adds a provider, or edits one: kind, base URL, default model, whether it needs a key. */
export function ProviderForm({ api, initial, models = [], onSaved, onCancel }: ProviderFormProps) {
  const { t } = useTranslation();
  const editing = initial !== undefined;
  const [name, setName] = useState(initial?.name ?? '');
  const [kind, setKind] = useState<WireKind>(initial?.kind ?? 'openai');
  const [baseUrl, setBaseUrl] = useState(initial?.base_url ?? '');
  const [model, setModel] = useState(initial?.default_model ?? '');
  const [noKey, setNoKey] = useState(initial ? initial.requires_key === false : false);
  /** Whether the model named takes images, as the person says it (guess: from its name). */
  const [images, setImages] = useState<ImagesSaid>(() => imagesSaid(initial, initial?.default_model ?? ''));
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const listId = `models-${name || 'new'}`;
  // A field's error goes as soon as the person changes that field (and the form's own error
  // with it): an error about a value no longer there is not shown.
  const edited = (field: keyof Errors) =>
    setErrors((e) => {
      if (e[field] === undefined && e.form === undefined) return e;
      const rest: Errors = { ...e };
      delete rest[field];
      delete rest.form;
      return rest;
    });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const missing: Errors = {};
    if (!name.trim()) missing.name = t('settings.required');
    if (!baseUrl.trim()) missing.base_url = t('settings.required');
    setErrors(missing);
    if (Object.keys(missing).length > 0) return;
    const config: ProviderConfigInput = {
      ...(initial ?? {}),
      name: name.trim(),
      kind,
      base_url: baseUrl.trim(),
      requires_key: !noKey,
    };
    if (model.trim()) config.default_model = model.trim();
    else delete config.default_model;
    if (model.trim()) config.models = withImages(initial?.models ?? {}, model.trim(), images);
    setBusy(true);
    try {
      const saved = await api.saveProvider(config);
      onSaved(saved.name);
    } catch (err) {
      if (isApiError(err, 400)) setErrors({ [fieldOfMessage(err.message)]: err.message });
      else setErrors({ form: t('settings.failed', { error: messageOf(err) }) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="settings-form" aria-label={editing ? t('providers.editLabel', { name: initial.name }) : t('providers.addLabel')} onSubmit={(e) => void submit(e)} noValidate>
      <Field label={t('providers.name')} error={errors.name} hint={editing ? undefined : t('providers.nameHint')}>
        <input className="settings-input" value={name} readOnly={editing} onChange={(e) => {
            setName(e.target.value);
            edited('name');
          }} autoComplete="off" />
      </Field>
      <Field label={t('providers.kind')} error={errors.kind}>
        <select className="settings-input" value={kind} onChange={(e) => {
            setKind(e.target.value === 'anthropic' ? 'anthropic' : 'openai');
            edited('kind');
          }}>
          <option value="openai">{t('providers.kindOpenai')}</option>
          <option value="anthropic">{t('providers.kindAnthropic')}</option>
        </select>
      </Field>
      <Field label={t('providers.baseUrl')} error={errors.base_url} hint={t('providers.baseUrlHint')}>
        <input className="settings-input" type="url" value={baseUrl} onChange={(e) => {
            setBaseUrl(e.target.value);
            edited('base_url');
          }} autoComplete="off" spellCheck={false} />
      </Field>
      <Field label={t('providers.defaultModel')} error={errors.default_model}>
        <input className="settings-input" value={model} list={listId} onChange={(e) => {
            setModel(e.target.value);
            setImages(imagesSaid(initial, e.target.value.trim()));
            edited('default_model');
          }} autoComplete="off" spellCheck={false} />
      </Field>
      <Field label={t('providers.takesImages')} hint={t('providers.takesImagesHint')}>
        <select className="settings-input" value={images} disabled={!model.trim()} onChange={(e) => setImages(e.target.value === 'on' ? 'on' : e.target.value === 'off' ? 'off' : 'guess')}>
          <option value="guess">{t('providers.takesImagesGuess')}</option>
          <option value="on">{t('providers.takesImagesOn')}</option>
          <option value="off">{t('providers.takesImagesOff')}</option>
        </select>
      </Field>
      <datalist id={listId}>
        {models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <label className="settings-check">
        <input type="checkbox" checked={noKey} onChange={(e) => setNoKey(e.target.checked)} />
        {t('providers.noKey')}
      </label>
      <FormActions submitText={editing ? t('settings.save') : t('providers.add')} busy={busy} error={errors.form} onCancel={onCancel} />
    </form>
  );
}

export interface KeyFormProps {
  api: SettingsApi;
  name: string;
  hasKey: boolean | null;
  envVars: string[];
  onChanged: () => void;
}

/**
 * The API key: written once into the OS keyring through the server, never shown again (the
 * field is emptied as soon as it is stored, and nothing reads a key back).
 */
export function KeyForm({ api, name, hasKey, envVars, onChanged }: KeyFormProps) {
  const { t } = useTranslation();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const failure = (err: unknown) => {
    if (isApiError(err, 503)) return t('providers.keyringUnavailable', { vars: envVars.join(', ') });
    if (isApiError(err, 400)) return err.message;
    return t('settings.failed', { error: messageOf(err) });
  };

  const store = async (event: FormEvent) => {
    event.preventDefault();
    setNote(null);
    if (!key) {
      setError(t('settings.required'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const answer = await api.setKey(name, key);
      setKey('');
      setNote(answer.env_override ? t('providers.keyEnvOverride', { vars: answer.env_override }) : t('providers.keyStored'));
      onChanged();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      await api.deleteKey(name);
      setNote(t('providers.keyRemoved'));
      onChanged();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="settings-inline-form" aria-label={t('providers.keyLabel', { name })} onSubmit={(e) => void store(e)}>
      <Field
        label={t('providers.apiKey')}
        error={error}
        hint={hasKey === null ? t('providers.keyUnknown') : hasKey ? t('providers.keySet') : t('providers.keyNotSet')}
      >
        <input className="settings-input" type="password" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="new-password" spellCheck={false} />
      </Field>
      <button type="submit" className="button button-secondary" disabled={busy}>
        {t('providers.saveKey')}
      </button>
      {hasKey && (
        <button type="button" className="button button-secondary" disabled={busy} onClick={() => void remove()}>
          {t('providers.deleteKey')}
        </button>
      )}
      {note && (
        <span role="status" className="settings-saved">
          {note}
        </span>
      )}
    </form>
  );
}
