import { copyText } from '../components/clipboard';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { inDesktopShell, shellDiagnostics } from '../transport/ipc';
import type { SettingsApi } from './api';
import { messageOf } from './fields';

/**
 * What a bug report needs, without a secret: in the desktop app the shell's report (versions,
 * platform, settings and providers, recent warnings and errors of its log); in a browser what
 * the API shows (settings, providers) and the browser's own version.
 */
async function collect(api: SettingsApi | null): Promise<string> {
  if (inDesktopShell()) return shellDiagnostics();
  const [settings, providers] = api ? await Promise.all([api.settings(), api.providers()]) : [null, null];
  return JSON.stringify({ app: 'Tessera (web UI)', user_agent: navigator.userAgent, settings, providers }, null, 2);
}

export function DiagnosticsSection({ api }: { api: SettingsApi | null }) {
  const { t } = useTranslation();
  const [text, setText] = useState<string | null>(null);
  const [status, setStatus] = useState<'idle' | 'copied' | 'shown' | 'failed'>('idle');
  const [error, setError] = useState<string | null>(null);

  const copy = async () => {
    setError(null);
    let report: string;
    try {
      report = await collect(api);
    } catch (err) {
      setStatus('failed');
      setError(messageOf(err));
      return;
    }
    setText(report);
    try {
      await copyText(report);
      setStatus('copied');
    } catch {
      // No clipboard access here: the report is shown to copy by hand.
      setStatus('shown');
    }
  };

  return (
    <section className="settings-group" aria-labelledby="general-diagnostics">
      <h3 id="general-diagnostics" className="settings-group-title">
        {t('general.diagnostics')}
      </h3>
      <p className="settings-hint">{t('general.diagnosticsHint')}</p>
      <button type="button" className="button button-secondary" onClick={() => void copy()} data-testid="copy-diagnostics">
        {t('general.copyDiagnostics')}
      </button>
      {status === 'copied' && (
        <span role="status" className="settings-saved">
          {t('general.diagnosticsCopied')}
        </span>
      )}
      {status === 'failed' && (
        <p className="notice notice-error" role="alert">
          {t('settings.failed', { error })}
        </p>
      )}
      {text !== null && (
        <textarea
          className="settings-input diagnostics-text"
          aria-label={t('general.diagnostics')}
          readOnly
          rows={8}
          value={text}
          data-testid="diagnostics-text"
        />
      )}
    </section>
  );
}
