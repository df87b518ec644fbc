import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SecretStoreView, SettingsApi } from './api';
import { messageOf } from './fields';

interface Props {
  api: SettingsApi;
  /** Called after the store changed (keys may be readable now). */
  onChanged?: () => void;
}

/**
 * Where keys and MCP secrets are kept. Silent while the system keyring works; when it cannot
 * be reached it says so once, in plain words, and offers the key file (labelled as less safe,
 * as the GitHub CLI and Goose do); while the key file is in use it says so, with the way back.
 */
export function SecretStoreNotice({ api, onChanged }: Props) {
  const { t } = useTranslation();
  const [view, setView] = useState<SecretStoreView | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setView(await api.secretStore());
    } catch {
      setView(null);
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  if (!view) return null;
  const usingFile = view.store === 'file';
  // Warnings about the key file (someone else's secrets.json, modes set back) are shown even
  // while the keyring works; otherwise a working keyring needs no word.
  const warnings = view.warnings ?? [];
  const keyringFine = !usingFile && view.keyring.reachable;
  if (keyringFine && warnings.length === 0) return null;

  const choose = async () => {
    setBusy(true);
    setError(null);
    try {
      const moved = await api.chooseSecretStore(usingFile ? 'keyring' : 'file');
      setNote(
        moved.not_moved.length > 0
          ? t('secrets.movedSome', { n: moved.moved.length, names: moved.not_moved.map((m) => m.account).join(', ') })
          : moved.moved.length > 0
            ? t('secrets.moved', { n: moved.moved.length })
            : null,
      );
      await load();
      onChanged?.();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="notice notice-warning" role="status" data-testid="secret-store-notice">
      {usingFile ? (
        <>
          <p>{t('secrets.usingFile', { path: view.key_file })}</p>
          <p className="settings-hint">{t('secrets.lessSafe')}</p>
        </>
      ) : keyringFine ? null : (
        <>
          <p>{t('secrets.keyringUnreachable')}</p>
          {/* The system's own words, kept as the detail under the sentence above. */}
          {view.keyring.reason && (
            <p className="settings-hint" lang="en">
              {view.keyring.reason}
            </p>
          )}
          <p className="settings-hint">{t('secrets.fileOffer')}</p>
        </>
      )}
      {/* The server's own words, naming the file and what was done. */}
      {warnings.map((warning) => (
        <p key={warning} className="settings-hint" lang="en" data-testid="secret-store-warning">
          {warning}
        </p>
      ))}
      {(!usingFile || view.keyring.reachable) && !keyringFine && (
        <div className="settings-actions">
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => void choose()} data-testid="secret-store-choose">
            {busy ? t('secrets.moving') : usingFile ? t('secrets.useKeyring') : t('secrets.useFile')}
          </button>
        </div>
      )}
      {note && <p className="settings-saved">{note}</p>}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
