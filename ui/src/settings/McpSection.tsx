import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { McpServerView, SettingsApi } from './api';
import { messageOf } from './fields';
import { McpImportForm, McpServerForm } from './McpServerForm';
import { McpServerItem, type CurrentConversation } from './McpServerItem';
import { SecretStoreNotice } from './SecretStoreNotice';
import './mcp.css';

export type { CurrentConversation };

export interface McpSectionProps {
  api: SettingsApi | null;
  /** The conversation open in the chat, if any: resources can be attached to it. */
  conversation: CurrentConversation | null;
}

/** MCP servers: their state and tools; adding, pasting, editing, turning off, removing. */
export function McpSection({ api, conversation }: McpSectionProps) {
  const { t } = useTranslation();
  const [servers, setServers] = useState<McpServerView[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  // Green says all went well: not when a server that should run did not start.
  const [noteWarns, setNoteWarns] = useState(false);
  const [adding, setAdding] = useState<'form' | 'paste' | null>(null);
  const [connecting, setConnecting] = useState(false);
  const addRef = useRef<HTMLButtonElement | null>(null);

  const load = useCallback(
    async (connect = false) => {
      if (!api) return;
      try {
        const list = await api.mcpServers(connect);
        setServers(list);
        setLoadError(null);
        if (connect) {
          const live = list.filter((s) => !s.disabled);
          const ready = live.filter((s) => s.status.state === 'ready').length;
          setNote(t(ready === live.length ? 'mcp.connected' : 'mcp.connectedSome', { ready, total: live.length }));
          setNoteWarns(ready < live.length);
        }
      } catch (err) {
        setLoadError(messageOf(err));
      }
    },
    [api, t],
  );

  useEffect(() => {
    void load();
  }, [load]);

  if (!api) return <p className="settings-hint">{t('settings.notConnected')}</p>;

  const connectAll = async () => {
    setConnecting(true);
    setNote(null);
    try {
      await load(true);
    } finally {
      setConnecting(false);
    }
  };

  const replace = (view: McpServerView) =>
    setServers((list) => (list?.some((s) => s.name === view.name) ? list.map((s) => (s.name === view.name ? view : s)) : [...(list ?? []), view]));

  return (
    <div className="mcp-section">
      <p className="settings-hint">{t('mcp.intro')}</p>
      <SecretStoreNotice api={api} />
      {loadError && (
        <p className="notice notice-error" role="alert">
          {t('settings.loadFailed', { error: loadError })}
        </p>
      )}
      <div className="settings-actions">
        <button ref={addRef} type="button" className="button button-primary" aria-expanded={adding === 'form'} onClick={() => setAdding((a) => (a === 'form' ? null : 'form'))}>
          {t('mcp.add')}
        </button>
        <button type="button" className="button button-secondary" aria-expanded={adding === 'paste'} onClick={() => setAdding((a) => (a === 'paste' ? null : 'paste'))}>
          {t('mcp.paste')}
        </button>
        <button type="button" className="button button-secondary" disabled={connecting || !servers?.length} aria-busy={connecting || undefined} onClick={() => void connectAll()}>
          {t('mcp.connectAll')}
        </button>
      </div>
      <p className={noteWarns && !connecting ? 'settings-hint mcp-note mcp-note-warning' : 'settings-saved mcp-note'} role="status" data-testid="mcp-note">
        {connecting ? t('mcp.connecting') : note}
      </p>
      {adding === 'form' && (
        <McpServerForm
          api={api}
          onSaved={(view) => {
            setAdding(null);
            replace(view);
            setNote(t('mcp.saved', { name: view.name }));
            setNoteWarns(false);
          }}
          onCancel={() => setAdding(null)}
        />
      )}
      {adding === 'paste' && (
        <McpImportForm
          api={api}
          onImported={(added, list) => {
            setAdding(null);
            setServers(list);
            setNote(t('mcp.imported', { names: added.join(', ') }));
            setNoteWarns(false);
          }}
          onCancel={() => setAdding(null)}
        />
      )}
      {servers === null && !loadError && <p className="settings-hint">{t('mcp.loading')}</p>}
      {servers?.length === 0 && (
        <div className="mcp-empty">
          <p>{t('mcp.empty')}</p>
          <p className="settings-hint">{t('mcp.emptyHint')}</p>
        </div>
      )}
      {servers && servers.length > 0 && (
        <ul className="mcp-servers" aria-label={t('mcp.listLabel')} aria-busy={connecting || undefined}>
          {servers.map((server) => (
            <McpServerItem
              key={server.name}
              api={api}
              // Connect all starts every server that is not running: say so on each until it answers.
              server={connecting && !server.disabled && server.status.state !== 'ready' ? { ...server, status: { state: 'starting' } } : server}
              conversation={conversation}
              onChanged={(view, message) => {
                replace(view);
                setNote(message);
                setNoteWarns(false);
              }}
              onRemoved={(name) => {
                setServers((list) => list?.filter((s) => s.name !== name) ?? null);
                setNote(t('mcp.removed', { name }));
                setNoteWarns(false);
                // The removed server's buttons are gone: keep the keyboard in this section.
                addRef.current?.focus();
              }}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
