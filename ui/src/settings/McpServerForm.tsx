import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { McpServerView, SettingsApi } from './api';
import { Field, FormActions, isApiError, messageOf } from './fields';
import { draftOf, emptyDraft, entryOf, fieldOfMcpError, type McpDraft, type McpDraftField, type McpTransportKind } from './mcpEntry';

type Errors = Partial<Record<McpDraftField | 'form', string>>;

export interface McpServerFormProps {
  api: SettingsApi;
  /** The server being edited; absent: a new one. */
  initial?: McpServerView | undefined;
  onSaved: (server: McpServerView) => void;
  onCancel: () => void;
}

/**
 * Adds or edits an MCP server: a program (command, arguments, environment) or a URL (headers).
 * Secrets already in the keyring are listed by name only and sent back as the keyring mark.
 */
export function McpServerForm({ api, initial, onSaved, onCancel }: McpServerFormProps) {
  const { t } = useTranslation();
  const editing = initial !== undefined;
  const [draft, setDraft] = useState<McpDraft>(() => (initial ? draftOf(initial) : emptyDraft()));
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const transportName = useId();
  const keptId = useId();

  const set = <K extends keyof McpDraft>(key: K, value: McpDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const changeTransport = (transport: McpTransportKind) =>
    // Kept secrets belong to the transport they were stored for (env or headers).
    setDraft((d) => ({ ...d, transport, kept: initial && draftOf(initial).transport === transport ? draftOf(initial).kept : [] }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const missing: Errors = {};
    const name = draft.name.trim();
    if (!name) missing.name = t('settings.required');
    if (draft.transport === 'stdio' && !draft.command.trim()) missing.command = t('settings.required');
    if (draft.transport === 'http' && !draft.url.trim()) missing.url = t('settings.required');
    const built = entryOf(draft, initial?.config);
    if ('problem' in built) {
      const { field, line } = built.problem;
      missing[field] = field === 'env' ? t('mcp.badLineEnv', { line }) : t('mcp.badLineHeaders', { line });
    }
    setErrors(missing);
    if (Object.keys(missing).length > 0 || 'problem' in built) return;
    setBusy(true);
    try {
      onSaved(await api.putMcpServer(name, built.entry));
    } catch (err) {
      if (isApiError(err, 422)) setErrors({ [fieldOfMcpError(err.message, draft.transport)]: err.message });
      else setErrors({ form: t('settings.failed', { error: messageOf(err) }) });
    } finally {
      setBusy(false);
    }
  };

  const stdio = draft.transport === 'stdio';
  return (
    <form className="settings-form" aria-label={editing ? t('mcp.editServer', { name: initial.name }) : t('mcp.newServer')} onSubmit={(e) => void submit(e)} noValidate>
      <Field label={t('mcp.name')} error={errors.name} hint={editing ? undefined : t('mcp.nameHint')}>
        <input className="settings-input" value={draft.name} readOnly={editing} onChange={(e) => set('name', e.target.value)} autoComplete="off" spellCheck={false} />
      </Field>
      <fieldset className="settings-fieldset">
        <legend className="settings-label">{t('mcp.transport')}</legend>
        {(['stdio', 'http'] as const).map((kind) => (
          <label key={kind} className="settings-check">
            <input type="radio" name={transportName} value={kind} checked={draft.transport === kind} onChange={() => changeTransport(kind)} />
            {kind === 'stdio' ? t('mcp.transportStdio') : t('mcp.transportHttp')}
          </label>
        ))}
      </fieldset>
      {stdio ? (
        <>
          <Field label={t('mcp.command')} error={errors.command}>
            <input className="settings-input settings-code" value={draft.command} onChange={(e) => set('command', e.target.value)} autoComplete="off" spellCheck={false} />
          </Field>
          <Field label={t('mcp.args')} error={errors.args} hint={t('mcp.argsHint')}>
            <textarea className="settings-input settings-code" rows={3} value={draft.args} onChange={(e) => set('args', e.target.value)} spellCheck={false} />
          </Field>
          <Field label={t('mcp.env')} error={errors.env} hint={`${t('mcp.envHint')} ${t('mcp.secretsHint')}`}>
            <textarea className="settings-input settings-code" rows={3} value={draft.env} onChange={(e) => set('env', e.target.value)} spellCheck={false} autoComplete="off" />
          </Field>
        </>
      ) : (
        <>
          <Field label={t('mcp.url')} error={errors.url}>
            <input className="settings-input settings-code" type="url" value={draft.url} onChange={(e) => set('url', e.target.value)} autoComplete="off" spellCheck={false} />
          </Field>
          <Field label={t('mcp.headers')} error={errors.headers} hint={`${t('mcp.headersHint')} ${t('mcp.secretsHint')}`}>
            <textarea className="settings-input settings-code" rows={3} value={draft.headers} onChange={(e) => set('headers', e.target.value)} spellCheck={false} autoComplete="off" />
          </Field>
        </>
      )}
      {draft.kept.length > 0 && (
        <div className="settings-field">
          <p id={keptId} className="settings-label">
            {t('mcp.keptTitle')}
          </p>
          <ul className="settings-list" aria-labelledby={keptId}>
            {draft.kept.map((secret) => (
              <li key={secret}>
                <code>{secret}</code> <span className="settings-hint">{t('mcp.secretKept')}</span>{' '}
                <button
                  type="button"
                  className="button button-secondary button-small"
                  aria-label={t('mcp.forgetLabel', { name: secret })}
                  onClick={() => set('kept', draft.kept.filter((k) => k !== secret))}
                >
                  {t('mcp.forget')}
                </button>
              </li>
            ))}
          </ul>
          <p className="settings-hint">{t('mcp.keptHint')}</p>
        </div>
      )}
      <Field label={t('mcp.startupTimeout')} error={errors.startupTimeout} hint={t('mcp.startupTimeoutHint')}>
        <input className="settings-input settings-input-short" inputMode="numeric" value={draft.startupTimeout} onChange={(e) => set('startupTimeout', e.target.value)} autoComplete="off" />
      </Field>
      <FormActions submitText={editing ? t('mcp.save') : t('mcp.addServer')} busy={busy} error={errors.form} onCancel={onCancel} />
    </form>
  );
}

export interface McpImportFormProps {
  api: SettingsApi;
  onImported: (added: string[], servers: McpServerView[]) => void;
  onCancel: () => void;
}

/** Takes a pasted `{"mcpServers": {…}}` document as other apps write it. */
export function McpImportForm({ api, onImported, onCancel }: McpImportFormProps) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** Servers the document would replace, waiting for the person to confirm. */
  const [replacing, setReplacing] = useState<string[] | null>(null);

  const send = async (document: unknown, replace: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const imported = await api.importMcpServers(document, replace);
      setReplacing(null);
      onImported(imported.added, imported.servers);
    } catch (err) {
      if (isApiError(err, 409) && err.code === 'MCP_SERVERS_EXIST') {
        const names = err.details?.['servers'];
        setReplacing(Array.isArray(names) ? names.map(String) : []);
      } else {
        setError(isApiError(err, 422) ? err.message : t('settings.failed', { error: messageOf(err) }));
      }
    } finally {
      setBusy(false);
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) {
      setError(t('settings.required'));
      return;
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (err) {
      setError(t('mcp.notJson', { error: messageOf(err) }));
      return;
    }
    await send(document, false);
  };

  return (
    <form className="settings-form" aria-label={t('mcp.importLabel')} onSubmit={(e) => void submit(e)} noValidate>
      <Field label={t('mcp.document')} error={error} hint={t('mcp.documentHint')}>
        <textarea className="settings-input settings-code" rows={8} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} autoComplete="off" />
      </Field>
      {replacing ? (
        <div className="notice notice-warning" role="alert" data-testid="mcp-import-replace">
          <p>{t('mcp.importWouldReplace', { names: replacing.join(', '), count: replacing.length })}</p>
          <div className="settings-actions">
            <button type="button" className="button button-danger button-small" disabled={busy} onClick={() => void send(JSON.parse(text), true)}>
              {t('mcp.importReplace')}
            </button>
            <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => setReplacing(null)}>
              {t('mcp.keep')}
            </button>
          </div>
        </div>
      ) : (
        <FormActions submitText={t('mcp.import')} busy={busy} onCancel={onCancel} />
      )}
    </form>
  );
}
