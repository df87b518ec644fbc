import { useCallback, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConsentGrantView } from '../generated/ConsentGrantView';
import type { ConsentScope } from '../generated/ConsentScope';
import { InlineConfirm } from '../components/InlineConfirm';
import type { TesseraClient } from '../transport/client';
import { listGrants, revokeGrant } from './api';
import './permissions.css';
import { describeError } from '../transport/describeError';

export interface PermissionsPageProps {
  client: TesseraClient | null;
  /** `false` when the page sits under a heading of its own (the Settings section). */
  heading?: boolean;
}


/** A stored timestamp as the person reads it (the stored text when it is not a date). */
export function when(timestamp: string, language: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  return date.toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short' });
}

const SCOPES: ConsentScope[] = ['always', 'conversation', 'once'];
const SCOPE_TITLE = { always: 'permissions.groupAlways', conversation: 'permissions.groupConversation', once: 'permissions.groupOnce' } as const;
const SCOPE_HINT = { always: 'permissions.hintAlways', conversation: 'permissions.hintConversation', once: 'permissions.hintOnce' } as const;

/** One grant, with its revoke button and, once pressed, an inline confirmation. */
function GrantRow({ grant, onRevoke }: { grant: ConsentGrantView; onRevoke: (grant: ConsentGrantView) => Promise<void> }) {
  const { t, i18n } = useTranslation();
  const spent = grant.scope === 'once' && grant.used_at !== null;
  const conversation = grant.conversation_title ?? (grant.conversation_id ? t('permissions.untitledConversation') : null);
  return (
    <li className="grant" data-testid="grant" data-grant-id={grant.grant_id} data-revoked={grant.revoked_at !== null}>
      <div className="grant-main">
        <code className="grant-tool">{grant.tool}</code>
        {conversation && <span className="grant-conversation">{t('permissions.inConversation', { title: conversation })}</span>}
        {grant.revoked_at !== null && <span className="badge badge-bad">{t('permissions.revoked')}</span>}
        {spent && grant.revoked_at === null && <span className="badge">{t('permissions.spent')}</span>}
      </div>
      <p className="grant-dates">
        {t('permissions.created', { when: when(grant.created_at, i18n.language) })}
        {' · '}
        {grant.used_at ? t('permissions.lastUsed', { when: when(grant.used_at, i18n.language) }) : t('permissions.neverUsed')}
        {grant.revoked_at && ` · ${t('permissions.revokedAt', { when: when(grant.revoked_at, i18n.language) })}`}
      </p>
      {grant.revoked_at === null && (
        <InlineConfirm
          className="grant-revoke"
          label={t('permissions.revoke')}
          ariaLabel={t('permissions.revokeLabel', { tool: grant.tool })}
          question={t('permissions.confirm', { tool: grant.tool })}
          confirmText={t('permissions.confirmRevoke')}
          keepText={t('permissions.keep')}
          onConfirm={() => onRevoke(grant)}
        />
      )}
    </li>
  );
}

/**
 * Every consent grant the person gave (always, for a conversation, once), grouped by how far it
 * reaches, each revocable after a confirmation; revoked ones on request.
 */
export function PermissionsPage({ client, heading = true }: PermissionsPageProps) {
  const { t } = useTranslation();
  const [grants, setGrants] = useState<ConsentGrantView[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const [showRevoked, setShowRevoked] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const headingId = useId();

  const load = useCallback(
    async (signal?: AbortSignal) => {
      if (!client) return;
      try {
        const list = await listGrants(client, showRevoked, signal);
        if (signal?.aborted) return;
        setGrants(list);
        setLoadError(null);
      } catch (error) {
        if (signal?.aborted) return;
        setLoadError(describeError(error));
      }
    },
    [client, showRevoked],
  );

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const onRevoke = async (grant: ConsentGrantView) => {
    if (!client) return;
    setRevokeError(null);
    try {
      const revoked = await revokeGrant(client, grant.grant_id);
      setGrants((list) =>
        list === null ? list : showRevoked ? list.map((g) => (g.grant_id === revoked.grant_id ? revoked : g)) : list.filter((g) => g.grant_id !== revoked.grant_id),
      );
      setAnnouncement(t('permissions.revokedNotice', { tool: grant.tool }));
    } catch (error) {
      setRevokeError(t('permissions.revokeFailed', { tool: grant.tool, error: describeError(error) }));
    }
  };

  return (
    <section
      className="permissions-page"
      aria-labelledby={heading ? headingId : undefined}
      aria-label={heading ? undefined : t('permissions.title')}
      data-testid="permissions-page"
    >
      {heading && <h2 id={headingId}>{t('permissions.title')}</h2>}
      <p className="permissions-intro">{t('permissions.intro')}</p>
      <label className="permissions-toggle">
        <input type="checkbox" checked={showRevoked} onChange={(event) => setShowRevoked(event.target.checked)} />
        {t('permissions.showRevoked')}
      </label>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {!client && <p className="notice">{t('composer.notConnected')}</p>}
      {loadError && (
        <div className="notice notice-error" role="alert">
          {t('permissions.loadFailed', { error: loadError })}{' '}
          <button type="button" className="button button-secondary button-small" onClick={() => void load()}>
            {t('permissions.retry')}
          </button>
        </div>
      )}
      {revokeError && (
        <p className="notice notice-error" role="alert">
          {revokeError}
        </p>
      )}
      {client && grants === null && !loadError && <p role="status">{t('permissions.loading')}</p>}
      {grants !== null && grants.length === 0 && (
        <div className="permissions-empty" data-testid="permissions-empty">
          <p>{t('permissions.empty')}</p>
          <p className="permissions-hint">{t('permissions.emptyHint')}</p>
        </div>
      )}
      {grants !== null &&
        SCOPES.map((scope) => {
          // A revoked grant allows nothing: it is listed apart, never under what is allowed.
          const inScope = grants.filter((g) => g.scope === scope && g.revoked_at === null);
          if (inScope.length === 0) return null;
          return (
            <section key={scope} className="grant-group" aria-labelledby={`${headingId}-${scope}`} data-testid={`grants-${scope}`}>
              <h3 id={`${headingId}-${scope}`}>
                {t(SCOPE_TITLE[scope])} <span className="grant-count">({inScope.length})</span>
              </h3>
              <p className="permissions-hint">{t(SCOPE_HINT[scope])}</p>
              <ul className="grant-list">
                {inScope.map((grant) => (
                  <GrantRow key={grant.grant_id} grant={grant} onRevoke={onRevoke} />
                ))}
              </ul>
            </section>
          );
        })}
      {grants !== null && grants.some((g) => g.revoked_at !== null) && (
        <section className="grant-group" aria-labelledby={`${headingId}-revoked`} data-testid="grants-revoked">
          <h3 id={`${headingId}-revoked`}>
            {t('permissions.groupRevoked')} <span className="grant-count">({grants.filter((g) => g.revoked_at !== null).length})</span>
          </h3>
          <p className="permissions-hint">{t('permissions.hintRevoked')}</p>
          <ul className="grant-list">
            {grants
              .filter((g) => g.revoked_at !== null)
              .map((grant) => (
                <GrantRow key={grant.grant_id} grant={grant} onRevoke={onRevoke} />
              ))}
          </ul>
        </section>
      )}
    </section>
  );
}
