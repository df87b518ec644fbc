import { useContext, useId, useRef, useState, type KeyboardEvent } from 'react';
import { ImageInputContext } from '../../components/useImageInput';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Overlay } from '../../components/Overlay';
import { useModalFocus } from '../../components/useModalFocus';
import type { ConsentDecision } from '../../generated/ConsentDecision';
import type { ConsentRequestPayload } from '../../generated/ConsentRequestPayload';
import type { RiskReason } from '../../generated/RiskReason';
import { pretty } from '../components/ToolCardView';

export interface ConsentDialogProps {
  request: ConsentRequestPayload;
  onDecide: (decision: ConsentDecision) => Promise<void>;
  /** Escape or "Decide later": the dialog closes and nothing is decided. */
  onClose: () => void;
}

const RISK_KEYS = { low: 'consent.riskLow', medium: 'consent.riskMedium', high: 'consent.riskHigh' } as const;

/** The dialog's title for the tools a person knows by what they do. */
const TITLE_KEYS: Partial<Record<string, 'consent.titleScreen' | 'consent.titleClipboardRead' | 'consent.titleClipboardWrite' | 'consent.titleSaveFile'>> = {
  screen_capture: 'consent.titleScreen',
  clipboard_read: 'consent.titleClipboardRead',
  clipboard_write: 'consent.titleClipboardWrite',
  save_file: 'consent.titleSaveFile',
};

/** Why the risk is what it is, in the person's words. */
export function reasonText(t: TFunction, reason: RiskReason): string {
  switch (reason.kind) {
    case 'reads':
      if (reason.resource === 'screen') return t('consent.reasonReadsScreen');
      if (reason.resource === 'clipboard') return t('consent.reasonReadsClipboard');
      if (reason.resource === 'filesystem' || reason.resource.startsWith('file:')) return t('consent.reasonReadsFiles');
      return t('consent.reasonReads', { resource: reason.resource });
    case 'writes':
      if (reason.resource === 'clipboard') return t('consent.reasonWritesClipboard');
      if (reason.resource === 'filesystem' || reason.resource.startsWith('file:')) return t('consent.reasonWritesFiles');
      return t('consent.reasonWrites', { resource: reason.resource });
    case 'may_destroy':
      return t('consent.reasonMayDestroy', { server: reason.server });
    case 'side_effects':
      return t('consent.reasonSideEffects');
    default: {
      const never: never = reason;
      return JSON.stringify(never);
    }
  }
}

/**
 * One thing the call touches, as the engine words it ("reads screen", "writes outbox"): the verb
 * in the UI's language, the resource as its name.
 */
function touchText(t: TFunction, item: string) {
  const match = /^(reads|writes) (.+)$/.exec(item);
  if (!match?.[2]) return item;
  const [before, after] = t(match[1] === 'reads' ? 'consent.touchReads' : 'consent.touchWrites', { resource: '\u0000' }).split('\u0000');
  return (
    <>
      {before}
      <code>{match[2]}</code>
      {after}
    </>
  );
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * The app asks before a tool that needs consent runs: the tool, its exact arguments, what it
 * touches and the risk, in the app's words; what the model wrote only as a quotation
 * attributed to the agent. Modal with focus kept inside; Escape closes without deciding.
 */
export function ConsentDialog({ request, onDecide, onClose }: ConsentDialogProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const descId = useId();
  const ref = useRef<HTMLDivElement | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  // A capture the model cannot see is said before it is taken, not found out after.
  const imageInput = useContext(ImageInputContext);
  const unseenBy = request.tool === 'screen_capture' && imageInput?.takes_images === false ? imageInput.model : null;

  useModalFocus(ref);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || !ref.current) return;
    const items = Array.from(ref.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    const active = document.activeElement;
    if (event.shiftKey && (active === first || active === ref.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  };

  const decide = async (decision: ConsentDecision) => {
    setBusy(true);
    setFailure(null);
    try {
      await onDecide(decision);
    } catch (error) {
      setFailure(t('consent.failed', { error: error instanceof Error ? error.message : String(error) }));
      setBusy(false);
    }
  };

  const risk = request.risk in RISK_KEYS ? t(RISK_KEYS[request.risk]) : request.risk;

  return (
    <Overlay>
      <div className="dialog-backdrop">
        <div
          ref={ref}
          className="dialog consent-dialog"
          role="dialog"
          aria-modal="true"
          aria-labelledby={titleId}
          aria-describedby={descId}
          tabIndex={-1}
          onKeyDown={onKeyDown}
          data-testid="consent-dialog"
        >
          <h2 id={titleId} className="dialog-title">
            {t(TITLE_KEYS[request.tool] ?? 'consent.title', { tool: request.tool })}
          </h2>
          <p id={descId}>{t('consent.intro')}</p>
          <dl className="consent-facts">
            <dt>{t('consent.tool')}</dt>
            <dd>
              <code data-testid="consent-tool">{request.tool}</code>
            </dd>
            {request.requested_by?.kind === 'specialist' && (
              <>
                <dt>{t('consent.requestedBy')}</dt>
                <dd data-testid="consent-requested-by">
                  {t('consent.bySpecialist', { name: request.requested_by.name ?? '?' })}
                </dd>
              </>
            )}
            <dt>{t('consent.arguments')}</dt>
            <dd>
              <pre className="tool-card-json" data-testid="consent-arguments">
                {pretty(request.arguments)}
              </pre>
            </dd>
            <dt>{t('consent.touches')}</dt>
            <dd>
              {request.touches.length > 0 ? (
                <ul className="consent-touches" data-testid="consent-touches">
                  {request.touches.map((item) => (
                    <li key={item}>{touchText(t, item)}</li>
                  ))}
                </ul>
              ) : (
                t('consent.nothingListed')
              )}
            </dd>
            <dt>{t('consent.risk')}</dt>
            <dd>
              <span className={`badge risk-${request.risk}`} data-testid="consent-risk">
                {risk}
              </span>
            </dd>
            {(request.risk_reasons?.length ?? 0) > 0 && (
              <>
                <dt>{t('consent.why')}</dt>
                <dd>
                  <ul className="consent-reasons" data-testid="consent-reasons">
                    {request.risk_reasons?.map((reason, i) => (
                      <li key={i}>{reasonText(t, reason)}</li>
                    ))}
                  </ul>
                </dd>
              </>
            )}
          </dl>
          {request.agent_says && (
            <figure className="consent-quote">
              <figcaption>{t('consent.agentSays')}</figcaption>
              <blockquote data-testid="consent-agent-says">{request.agent_says}</blockquote>
            </figure>
          )}
          {failure && (
            <p className="notice notice-error" role="alert">
              {failure}
            </p>
          )}
          {unseenBy && (
            <p className="notice" data-testid="consent-unseen">
              {t('consent.captureUnseen', { model: unseenBy })}
            </p>
          )}
          <div className="dialog-actions">
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void decide('deny')}>
              {t('consent.deny')}
            </button>
            <button type="button" className="button button-primary" disabled={busy} onClick={() => void decide('allow_once')}>
              {t('consent.allowOnce')}
            </button>
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void decide('allow_conversation')}>
              {t('consent.allowConversation')}
            </button>
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void decide('allow_always')}>
              {t('consent.allowAlways')}
            </button>
            <button type="button" className="button dialog-later" disabled={busy} onClick={onClose}>
              {t('consent.close')}
            </button>
          </div>
        </div>
      </div>
    </Overlay>
  );
}

/** A pending consent in the conversation: the dialog, or once closed a button to reopen it. */
export function PendingConsentView({ request, onDecide }: { request: ConsentRequestPayload; onDecide: ConsentDialogProps['onDecide'] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(true);
  return open ? (
    <ConsentDialog request={request} onDecide={onDecide} onClose={() => setOpen(false)} />
  ) : (
    <p className="notice">
      <button type="button" className="button button-secondary" onClick={() => setOpen(true)} data-testid="consent-reopen">
        {t('consent.reopen', { tool: request.tool })}
      </button>
    </p>
  );
}
