import { useTranslation } from 'react-i18next';
import type { JsonValue } from '../../generated/serde_json/JsonValue';
import type { ChatState, ToolCard, ToolPhase } from '../reducer';
import { FormSummary } from '../forms/FormSummary';
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

/** One tool call: its live state, the arguments after substitution, the result or error, the duration. */
export function ToolCardView({ card, tools }: { card: ToolCard; tools: ChatState['tools'] }) {
  const { t } = useTranslation();
  const finished = !['preparing', 'called', 'queued', 'running'].includes(card.phase);
  const failed = finished && card.phase !== 'success';
  return (
    <section className="tool-card" data-testid="tool-card" data-phase={card.phase} aria-label={t('tool.label', { name: card.name })}>
      <details open={!finished || failed}>
        <summary className="tool-card-summary">
          <span className="tool-card-name">{card.name}</span>
          <span className={`badge badge-${failed ? 'bad' : finished ? 'good' : 'live'}`} data-testid="tool-phase">
            {t(PHASE_KEYS[card.phase])}
          </span>
          {card.agent?.turn !== undefined && card.agent.maxTurns !== undefined && (
            <span className="tool-card-meta" data-testid="agent-turn">
              {t('tool.turn', { turn: card.agent.turn, max: card.agent.maxTurns })}
            </span>
          )}
          {card.progress && (
            <span className="tool-card-meta">
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
      {card.name === 'request_form' && card.result !== undefined && (
        <div className="tool-card-pictures">
          <FormSummary args={card.arguments} result={card.result} />
        </div>
      )}
      {card.result !== undefined && (
        <div className="tool-card-pictures">
          <ToolImages tool={card.name} result={card.result} />
        </div>
      )}
    </section>
  );
}
