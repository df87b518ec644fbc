import { useTranslation } from 'react-i18next';
import type { JsonValue } from '../../generated/serde_json/JsonValue';
import type { ChatState, ToolCard, ToolPhase } from '../reducer';
import { FormSummary, formTitleOf } from '../forms/FormSummary';
import { ToolImages } from './ToolImages';

const PHASE_KEYS = {
  preparing: 'tool.preparing',
  called: 'tool.called',
  queued: 'tool.queued',
  running: 'tool.running',
  success: 'tool.success',
  error: 'tool.errorStatus',
  timeout: 'tool.timeout',
  denied: 'tool.denied',
  skipped: 'tool.skipped',
  cancelled: 'tool.cancelled',
  interrupted: 'tool.interrupted',
  not_found: 'tool.not_found',
} as const satisfies Record<ToolPhase, string>;

export function pretty(value: JsonValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

const REQUEST_FORM = 'request_form';

type FormOutcome = 'answered' | 'declined' | 'cancelled' | 'stopped' | 'superseded' | 'restarted';

const FORM_BADGE_KEYS = {
  answered: 'form.outcomeAnswered',
  declined: 'form.outcomeDeclined',
  cancelled: 'form.outcomeCancelled',
  stopped: 'form.outcomeCancelled',
  superseded: 'form.outcomeCancelled',
  restarted: 'form.outcomeCancelled',
} as const satisfies Record<FormOutcome, string>;

const FORM_SENTENCE_KEYS = {
  declined: 'form.declinedNote',
  cancelled: 'form.cancelledNote',
  stopped: 'form.stoppedNote',
  superseded: 'form.supersededNote',
  restarted: 'form.restartedNote',
} as const satisfies Record<Exclude<FormOutcome, 'answered'>, string>;

/**
 * How a form ended, as the person would say it: its result's `action`, or, for a call the
 * engine closed unanswered, why (its error ends with the reason's code).
 */
function formOutcome(card: ToolCard): FormOutcome | null {
  if (card.phase === 'success') {
    const result = card.result;
    const action = typeof result === 'object' && result !== null && !Array.isArray(result) ? result['action'] : undefined;
    return action === 'decline' ? 'declined' : action === 'cancel' ? 'cancelled' : 'answered';
  }
  if (card.phase !== 'cancelled') return null;
  const error = card.error;
  const message = typeof error === 'object' && error !== null && !Array.isArray(error) && typeof error['message'] === 'string' ? error['message'] : '';
  const reason = /\((\w+)\)$/.exec(message)?.[1];
  return reason === 'superseded' ? 'superseded' : reason === 'interrupted' ? 'restarted' : 'stopped';
}

/** One tool call: its live state, the arguments after substitution, the result or error, the duration. */
export function ToolCardView({ card, tools }: { card: ToolCard; tools: ChatState['tools'] }) {
  const { t } = useTranslation();
  const finished = !['preparing', 'called', 'queued', 'running'].includes(card.phase);
  const failed = finished && card.phase !== 'success';
  // A form is the person's own conversation, not a tool's output: named by its title, its
  // outcome in words; the request's JSON stays folded (the form itself is shown while it waits).
  const form = card.name === REQUEST_FORM;
  const outcome = form ? formOutcome(card) : null;
  const name = form ? (formTitleOf(card.arguments) ?? t('form.untitled')) : card.name;
  const badge = outcome ? (
    <span className={outcome === 'answered' ? 'badge badge-good' : 'badge'} data-testid="tool-phase">
      {t(FORM_BADGE_KEYS[outcome])}
    </span>
  ) : (
    <span className={`badge badge-${failed ? 'bad' : finished ? 'good' : 'live'}`} data-testid="tool-phase">
      {t(PHASE_KEYS[card.phase])}
    </span>
  );
  return (
    <section
      className="tool-card"
      data-testid="tool-card"
      data-phase={card.phase}
      aria-label={form ? t('form.label', { title: name }) : t('tool.label', { name: card.name })}
    >
      <details open={form ? outcome === null && failed : !finished || failed}>
        <summary className="tool-card-summary">
          <span className={form ? 'tool-card-name tool-card-form-title' : 'tool-card-name'}>{name}</span>
          {badge}
          {card.agent?.turn !== undefined && card.agent.maxTurns !== undefined && (
            <span className="tool-card-meta" data-testid="agent-turn">
              {t('tool.turn', { turn: card.agent.turn, max: card.agent.maxTurns })}
            </span>
          )}
          {/* Progress says what is under way: once the call ended, nothing is. */}
          {card.progress && !finished && (
            <span className="tool-card-meta" data-testid="tool-progress">
              {card.progress.total !== undefined
                ? t('tool.progress', { progress: card.progress.progress, total: card.progress.total })
                : card.progress.progress}
              {card.progress.message ? ` · ${card.progress.message}` : ''}
            </span>
          )}
          {card.durationMs !== undefined && <span className="tool-card-meta">{t('tool.duration', { ms: card.durationMs })}</span>}
        </summary>
        <div className="tool-card-body">
          {card.agentSays && (
            // The agent's words, never the app's: quoted and attributed (as in a consent request).
            <figure className="consent-quote">
              <figcaption>{t('consent.agentSays')}</figcaption>
              <blockquote data-testid="tool-agent-says">{card.agentSays}</blockquote>
            </figure>
          )}
          {card.arguments !== undefined ? (
            <>
              <h4 className="tool-card-heading">{t('tool.arguments')}</h4>
              <pre className="tool-card-json" data-testid="tool-arguments">{pretty(card.arguments)}</pre>
            </>
          ) : card.argumentsDraft ? (
            <>
              <h4 className="tool-card-heading">{t('tool.argumentsStreaming')}</h4>
              <pre className="tool-card-json">{card.argumentsDraft}</pre>
            </>
          ) : null}
          {card.result !== undefined && (
            <>
              <h4 className="tool-card-heading">{t('tool.result')}</h4>
              <pre className="tool-card-json" data-testid="tool-result">{pretty(card.result)}</pre>
            </>
          )}
          {card.error !== undefined && (
            <>
              <h4 className="tool-card-heading">{t('tool.error')}</h4>
              <pre className="tool-card-json tool-card-error" data-testid="tool-error">{pretty(card.error)}</pre>
            </>
          )}
          {card.children.length > 0 && (
            <div className="tool-card-children" role="group" aria-label={t('tool.nested', { name: card.name })}>
              {card.children.map((id) => {
                const child = tools[id];
                return child ? <ToolCardView key={id} card={child} tools={tools} /> : null;
              })}
            </div>
          )}
        </div>
      </details>
      {/* Pictures a tool returned are what a person looks for: shown with the card folded too. */}
      {outcome === 'answered' && (
        <div className="tool-card-pictures">
          <FormSummary args={card.arguments} result={card.result} />
        </div>
      )}
      {outcome !== null && outcome !== 'answered' && (
        <p className="tool-card-note" data-testid="form-outcome">
          {t(FORM_SENTENCE_KEYS[outcome])}
        </p>
      )}
      {card.result !== undefined && (
        <div className="tool-card-pictures">
          <ToolImages tool={card.name} result={card.result} />
        </div>
      )}
    </section>
  );
}
