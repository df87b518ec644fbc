import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { SettingsApi, SettingsView } from '../settings/api';
import { ErrorNotice, Field, messageOf } from '../settings/fields';

/**
 * What is wrong with a hub address or proxy, in the person's language, before it is sent (the
 * engine checks it again, in English, for other clients); null when it looks usable or is blank.
 */
export function addressProblem(t: TFunction, text: string, kind: 'address' | 'proxy'): string | null {
  const given = text.trim();
  if (!given) return null;
  const example = kind === 'address' ? 'https://hf-mirror.com' : 'http://127.0.0.1:7890';
  if (given.includes('@')) return t('localModels.hubCredentials');
  let url: URL;
  try {
    if (!given.includes('://') || /\s/.test(given)) throw new TypeError('no scheme');
    url = new URL(given);
  } catch {
    return t('localModels.hubNotAUrl', { given, example });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return t(kind === 'proxy' ? 'localModels.hubProxyScheme' : 'localModels.hubScheme', { scheme: url.protocol.replace(/:$/, '') });
  }
  if (!url.hostname) return t('localModels.hubNotAUrl', { given, example });
  return null;
}

/**
 * Where models download from: a hub address (a mirror) and a proxy, kept in the app's settings.
 * Its own confirmation and errors show here, beside the fields. `focusSignal` changing brings
 * it into view with the address field focused (a failed download's "Use a mirror or proxy").
 */
export function HubSettings({
  api,
  address,
  proxy,
  hub,
  onSaved,
  focusSignal = 0,
}: {
  api: SettingsApi;
  address: string | null;
  proxy: string | null;
  hub: string;
  onSaved: () => void;
  focusSignal?: number;
}) {
  const { t } = useTranslation();
  const [addressText, setAddressText] = useState(address ?? '');
  const [proxyText, setProxyText] = useState(proxy ?? '');
  const [errors, setErrors] = useState<{ address: string | null; proxy: string | null }>({ address: null, proxy: null });
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const addressRef = useRef<HTMLInputElement | null>(null);
  const groupRef = useRef<HTMLElement | null>(null);

  useEffect(() => {
    if (focusSignal === 0) return;
    groupRef.current?.scrollIntoView?.({ block: 'center' });
    addressRef.current?.focus();
  }, [focusSignal]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const found = { address: addressProblem(t, addressText, 'address'), proxy: addressProblem(t, proxyText, 'proxy') };
    setErrors(found);
    setSaved(null);
    setProblem(null);
    if (found.address || found.proxy) return;
    setBusy(true);
    try {
      let answer: SettingsView | null = null;
      if (addressText.trim() !== (address ?? '')) answer = await api.changeSetting('model_hub_address', addressText.trim() || null);
      if (proxyText.trim() !== (proxy ?? '')) answer = await api.changeSetting('model_hub_proxy', proxyText.trim() || null);
      if (answer) {
        setAddressText(answer.settings.model_hub_address ?? '');
        setProxyText(answer.settings.model_hub_proxy ?? '');
      }
      const now = answer ? answer.settings.model_hub_address : address;
      setSaved(now ? t('localModels.hubSaved', { hub: now }) : t('localModels.hubSavedDefault'));
      onSaved();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-group" aria-label={t('localModels.hubTitle')} ref={groupRef} data-testid="local-hub">
      <h3 className="settings-group-title">{t('localModels.hubTitle')}</h3>
      <p className="settings-hint">{t('localModels.hubIntro', { hub })}</p>
      <form onSubmit={(event) => void save(event)} className="local-custom" noValidate>
        <Field label={t('localModels.hubAddressLabel')} hint={t('localModels.hubAddressHint')} error={errors.address}>
          <input
            ref={addressRef}
            className="settings-input"
            value={addressText}
            placeholder="https://hf-mirror.com"
            inputMode="url"
            onChange={(e) => setAddressText(e.target.value)}
          />
        </Field>
        <Field label={t('localModels.hubProxyLabel')} hint={t('localModels.hubProxyHint')} error={errors.proxy}>
          <input className="settings-input" value={proxyText} placeholder="http://127.0.0.1:7890" inputMode="url" onChange={(e) => setProxyText(e.target.value)} />
        </Field>
        <div className="settings-actions">
          <button type="submit" className="button button-secondary" disabled={busy}>
            {t('localModels.hubSave')}
          </button>
        </div>
        <ErrorNotice message={problem} />
        {saved && (
          <p className="settings-saved" role="status">
            {saved}
          </p>
        )}
      </form>
    </section>
  );
}
