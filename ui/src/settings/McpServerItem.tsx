import { useCallback, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { McpServerStatus } from '../generated/McpServerStatus';
import type { McpToolSafety } from '../generated/McpToolSafety';
import { InlineConfirm } from '../components/InlineConfirm';
import type { McpPrompt, McpResource, McpServerView, SettingsApi } from './api';
import { ErrorNotice, SavedNote, messageOf } from './fields';
import { McpServerForm } from './McpServerForm';

/** The conversation shown in the chat when Settings opened: where a resource is attached. */
export interface CurrentConversation {
  id: string;
  title: string;
}

const STATE_KEYS = {
  idle: 'mcp.stateIdle',
  starting: 'mcp.stateStarting',
  ready: 'mcp.stateReady',
  failed: 'mcp.stateFailed',
  disabled: 'mcp.stateDisabled',
} as const satisfies Record<McpServerStatus['state'], string>;

/** What the server says of a tool, and what Tessera does about it. */
const SAFETY_KEYS = {
  read_only: 'mcp.safetyReadOnly',
  destructive: 'mcp.safetyDestructive',
  side_effecting: 'mcp.safetySideEffecting',
  unannotated: 'mcp.safetyUnannotated',
} as const satisfies Record<McpToolSafety, string>;

/** The same claims, for a server whose claims are not trusted (every call asks). */
const DOUBTED_KEYS = {
  read_only: 'mcp.doubtedReadOnly',
  destructive: 'mcp.doubtedDestructive',
  side_effecting: 'mcp.doubtedSideEffecting',
  unannotated: 'mcp.doubtedUnannotated',
} as const satisfies Record<McpToolSafety, string>;

function StatusLine({ status }: { status: McpServerStatus }) {
  const { t } = useTranslation();
  if (status.state === 'ready') return <p className="settings-hint">{t('mcp.runningAs', { server: status.server })}</p>;
  if (status.state === 'idle') return <p className="settings-hint">{t('mcp.idleHint')}</p>;
  if (status.state !== 'failed') return null;
  return (
    <div className="notice notice-error" data-testid="mcp-failure">
      <p>{t('mcp.failedWhy', { reason: status.reason })}</p>
      <p className="settings-hint">
        {status.retry_in_ms > 0 ? t('mcp.nextTry', { seconds: Math.ceil(status.retry_in_ms / 1000), attempts: status.attempts }) : t('mcp.retryWhenNeeded', { attempts: status.attempts })}
      </p>
    </div>
  );
}

function ServerLog({ api, name }: { api: SettingsApi; name: string }) {
  const { t } = useTranslation();
  const [lines, setLines] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setLines(await api.mcpLog(name));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  }, [api, name]);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <div className="mcp-panel">
      {error && (
        <p className="notice notice-error" role="alert">
          {t('settings.loadFailed', { error })}
        </p>
      )}
      {lines && (
        // Focusable so that a keyboard can scroll a long log.
        <pre className="mcp-log" role="log" aria-label={t('mcp.logLabel', { name })} tabIndex={0}>
          {lines.length > 0 ? lines.join('\n') : t('mcp.logEmpty')}
        </pre>
      )}
      <div className="settings-actions">
        <button type="button" className="button button-secondary button-small" onClick={() => void load()}>
          {t('mcp.refreshLog')}
        </button>
      </div>
    </div>
  );
}

function ResourcesAndPrompts({ api, name, conversation }: { api: SettingsApi; name: string; conversation: CurrentConversation | null }) {
  const { t } = useTranslation();
  const [found, setFound] = useState<{ resources: McpResource[]; prompts: McpPrompt[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [attaching, setAttaching] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    Promise.all([api.mcpResources(name), api.mcpPrompts(name)]).then(
      ([resources, prompts]) => live && setFound({ resources, prompts }),
      (err: unknown) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
    };
  }, [api, name]);

  const attach = async (resource: McpResource) => {
    if (!conversation) return;
    setAttaching(resource.uri);
    setError(null);
    setNote(null);
    try {
      await api.attachMcpResource(conversation.id, name, resource.uri);
      setNote(t('mcp.attached', { name: resource.title ?? resource.name, title: conversation.title }));
    } catch (err) {
      setError(t('settings.failed', { error: messageOf(err) }));
    } finally {
      setAttaching(null);
    }
  };

  return (
    <div className="mcp-panel">
      <ErrorNotice message={error} />
      <SavedNote message={note} />
      {found && (
        <>
          <h4 className="settings-subtitle">{t('mcp.resources')}</h4>
          {found.resources.length === 0 && <p className="settings-hint">{t('mcp.noResources')}</p>}
          {found.resources.length > 0 && !conversation && <p className="settings-hint">{t('mcp.noConversation')}</p>}
          <ul className="settings-list" aria-label={t('mcp.resources')}>
            {found.resources.map((r) => (
              <li key={r.uri} className="settings-list-row mcp-item">
                <span className="mcp-item-text">
                  <span>{r.title ?? r.name}</span>
                  <code className="settings-code settings-hint">{r.uri}</code>
                  {r.description && <span className="settings-hint">{r.description}</span>}
                </span>
                {conversation && (
                  <button
                    type="button"
                    className="button button-secondary button-small"
                    disabled={attaching !== null}
                    aria-label={t('mcp.attachLabel', { name: r.title ?? r.name, title: conversation.title })}
                    onClick={() => void attach(r)}
                  >
                    {t('mcp.attach', { title: conversation.title })}
                  </button>
                )}
              </li>
            ))}
          </ul>
          <h4 className="settings-subtitle">{t('mcp.prompts')}</h4>
          {found.prompts.length === 0 && <p className="settings-hint">{t('mcp.noPrompts')}</p>}
          <ul className="settings-list" aria-label={t('mcp.prompts')}>
            {found.prompts.map((p) => (
              <li key={p.name} className="mcp-item-text">
                <code className="settings-code">{p.name}</code>
                {p.description && <span className="settings-hint">{p.description}</span>}
                {p.arguments && p.arguments.length > 0 && <span className="settings-hint">{t('mcp.promptArguments', { names: p.arguments.map((a) => a.name).join(', ') })}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

export interface McpServerItemProps {
  api: SettingsApi;
  server: McpServerView;
  conversation: CurrentConversation | null;
  onChanged: (server: McpServerView, note: string | null) => void;
  onRemoved: (name: string) => void;
}

type Panel = 'tools' | 'log' | 'more';

/** One configured server: its state and why, its tools, and what can be done with it. */
export function McpServerItem({ api, server, conversation, onChanged, onRemoved }: McpServerItemProps) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<Record<Panel, boolean>>({ tools: false, log: false, more: false });
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState<'toggle' | 'restart' | 'remove' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const { name, status } = server;

  const run = async (what: NonNullable<typeof busy>, step: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError(t('settings.failed', { error: messageOf(err) }));
    } finally {
      setBusy(null);
    }
  };

  const toggle = (panel: Panel) => setOpen((o) => ({ ...o, [panel]: !o[panel] }));
  const panelButton = (panel: Panel, text: string, label: string) => (
    <button type="button" className="button button-secondary button-small" aria-expanded={open[panel]} aria-label={label} onClick={() => toggle(panel)}>
      {text}
    </button>
  );

  return (
    <li className="mcp-server" data-testid="mcp-server" data-server={name} data-state={status.state} aria-labelledby={titleId}>
      <div className="mcp-server-head">
        <h3 id={titleId} className="settings-group-title">
          {name}
        </h3>
        <span className={`badge mcp-state-${status.state}`} data-testid="mcp-state">
          {t(STATE_KEYS[status.state])}
        </span>
        {status.state === 'ready' && <span className="settings-hint">{t('mcp.toolCount', { count: server.tools.length })}</span>}
      </div>
      <code className="settings-code settings-hint mcp-uri">{server.uri}</code>
      <StatusLine status={status} />
      {server.secrets.length > 0 && (
        <ul className="settings-list" aria-label={t('mcp.secretsOf', { name })}>
          {server.secrets.map((secret) => (
            <li key={secret}>
              <code>{secret}</code> <span className="settings-hint">{t('mcp.secretKept')}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="settings-actions">
        {server.tools.length > 0 && panelButton('tools', t('mcp.tools', { count: server.tools.length }), t('mcp.toolsOf', { name }))}
        <button type="button" className="button button-secondary button-small" aria-expanded={editing} aria-label={t('mcp.editLabel', { name })} onClick={() => setEditing((e) => !e)}>
          {t('mcp.edit')}
        </button>
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={busy !== null}
          aria-label={server.disabled ? t('mcp.turnOnLabel', { name }) : t('mcp.turnOffLabel', { name })}
          onClick={() =>
            void run('toggle', async () => {
              const view = await api.putMcpServer(name, { ...server.config, disabled: !server.disabled });
              onChanged(view, server.disabled ? t('mcp.turnedOn', { name }) : t('mcp.turnedOff', { name }));
            })
          }
        >
          {server.disabled ? t('mcp.turnOn') : t('mcp.turnOff')}
        </button>
        <label className="settings-check">
          <input
            type="checkbox"
            checked={server.always_ask}
            disabled={busy !== null}
            data-testid="mcp-always-ask"
            onChange={() =>
              void run('toggle', async () => {
                const view = await api.putMcpServer(name, { ...server.config, alwaysAsk: !server.always_ask });
                onChanged(view, view.always_ask ? t('mcp.alwaysAskOn', { name }) : t('mcp.alwaysAskOff', { name }));
              })
            }
          />
          {t('mcp.alwaysAsk')}
        </label>
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={busy !== null || server.disabled}
          aria-label={t('mcp.restartLabel', { name })}
          onClick={() => void run('restart', async () => onChanged(await api.restartMcpServer(name), null))}
        >
          {busy === 'restart' ? t('mcp.restarting') : t('mcp.restart')}
        </button>
        {panelButton('log', t('mcp.log'), t('mcp.logLabel', { name }))}
        {status.state === 'ready' && panelButton('more', t('mcp.more'), t('mcp.moreLabel', { name }))}
        <InlineConfirm
          label={t('mcp.remove')}
          ariaLabel={t('mcp.removeLabel', { name })}
          question={t('mcp.removeConfirm', { name })}
          confirmText={t('mcp.confirmRemove')}
          keepText={t('mcp.keep')}
          disabled={busy !== null}
          onConfirm={() =>
            run('remove', async () => {
              await api.removeMcpServer(name);
              onRemoved(name);
            })
          }
        />
      </div>
      {busy === 'restart' && (
        <p className="settings-hint" role="status">
          {t('mcp.restarting')}
        </p>
      )}
      <ErrorNotice message={error} />
      {open.tools && (
        <ul className="settings-list mcp-panel" aria-label={t('mcp.toolsOf', { name })}>
          {server.tools.map((tool) => (
            <li key={tool.name} className="settings-list-row mcp-item">
              <span className="mcp-item-text">
                <code className="settings-code">{tool.name}</code>
                {(tool.title ?? tool.description) && <span className="settings-hint">{tool.title ?? tool.description}</span>}
              </span>
              <span className={`badge mcp-safety-${tool.safety}`} title={t('mcp.claimHint')}>
                {server.always_ask ? t(DOUBTED_KEYS[tool.safety]) : t(SAFETY_KEYS[tool.safety])}
              </span>
            </li>
          ))}
        </ul>
      )}
      {open.log && <ServerLog api={api} name={name} />}
      {open.more && status.state === 'ready' && <ResourcesAndPrompts api={api} name={name} conversation={conversation} />}
      {editing && (
        <McpServerForm
          api={api}
          initial={server}
          onSaved={(view) => {
            setEditing(false);
            onChanged(view, t('mcp.saved', { name }));
          }}
          onCancel={() => setEditing(false)}
        />
      )}
    </li>
  );
}
