import type { TFunction } from 'i18next';
import { modalKeyDown } from '../components/modalKeys';
import { createContext, useContext, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Overlay } from '../components/Overlay';
import { useModalFocus } from '../components/useModalFocus';
import type { ContextBlock } from '../generated/ContextBlock';
import type { Evidence } from '../generated/Evidence';
import type { EvidenceType } from '../generated/EvidenceType';
import type { SourceKind } from '../generated/SourceKind';
import type { RunContext } from '../generated/RunContext';
import { getRunContext } from '../permissions/api';
import type { TesseraClient } from '../transport/client';
import { BudgetBar } from './BudgetBar';
import { budgetShares, type DropReason, type Explanation, type Why } from './explanation';
import './inspector.css';
import { describeError } from '../transport/describeError';

/** The client the Context buttons of the chat ask; none: no button. */
const InspectorClient = createContext<TesseraClient | null>(null);

export function InspectorProvider({ client, children }: { client: TesseraClient | null; children: ReactNode }) {
  return <InspectorClient.Provider value={client}>{children}</InspectorClient.Provider>;
}

/** The client the chat's answers ask of their runs (the inspector, an answer's citations); none outside the chat. */
export function useInspectorClient(): TesseraClient | null {
  return useContext(InspectorClient);
}

const WHY = {
  must: 'inspector.whyMust',
  priority: 'inspector.whyPriority',
  system: 'inspector.whySystem',
  latest: 'inspector.whyLatest',
  recent: 'inspector.whyRecent',
  backfill: 'inspector.whyBackfill',
} as const satisfies Record<Why, string>;

const REASON = {
  expired: 'inspector.reasonExpired',
  budget: 'inspector.reasonBudget',
  summarised: 'inspector.reasonSummarised',
  unresolvable_ref: 'inspector.reasonUnresolvable',
  empty: 'inspector.reasonEmpty',
  duplicate: 'inspector.reasonDuplicate',
} as const satisfies Record<DropReason, string>;



const EVIDENCE_TYPE = {
  rag_doc: 'inspector.typeRagDoc',
  tool_result: 'inspector.typeToolResult',
  skill_output: 'inspector.typeSkillOutput',
  llm_output: 'inspector.typeLlmOutput',
  user_input: 'inspector.typeUserInput',
  other: 'inspector.typeOther',
} as const satisfies Record<EvidenceType, string>;

const SOURCE_KIND = {
  rag: 'inspector.kindRag',
  tool: 'inspector.kindTool',
  skill: 'inspector.kindSkill',
  llm: 'inspector.kindLlm',
  user: 'inspector.kindUser',
  system: 'inspector.kindSystem',
} as const satisfies Record<SourceKind, string>;

/** "tool result · weather_lookup": what an evidence is and where it came from. */
function EvidenceSource({ evidence, cited }: { evidence: Evidence | undefined; cited: boolean }) {
  const { t } = useTranslation();
  if (!evidence) return <span className="inspector-muted">{t('inspector.sourceUnknown')}</span>;
  const origin = [evidence.source.name, evidence.source.uri].filter(Boolean).join(' · ');
  return (
    <span className="inspector-source">
      {t('inspector.source', {
        type: evidence.type in EVIDENCE_TYPE ? t(EVIDENCE_TYPE[evidence.type]) : evidence.type.replace(/_/g, ' '),
        kind: evidence.source.kind in SOURCE_KIND ? t(SOURCE_KIND[evidence.source.kind]) : evidence.source.kind,
      })}
      {origin && (
        <>
          {' · '}
          <code>{origin}</code>
        </>
      )}
      {cited && <span className="badge badge-good inspector-cited">{t('inspector.cited')}</span>}
      <PassageFacts evidence={evidence} />
    </span>
  );
}

/** For a passage of a project's files: its citation, score, what found it, and the rule. */
function PassageFacts({ evidence }: { evidence: Evidence }) {
  const { t, i18n } = useTranslation();
  const meta = evidence.metadata;
  if (evidence.type !== 'rag_doc' || !meta || typeof meta['citation'] !== 'string') return null;
  const matched = Array.isArray(meta['matched_by']) ? meta['matched_by'] : [];
  const how =
    matched.includes('lexical') && matched.includes('vector')
      ? t('inspector.passageHowBoth')
      : matched.includes('vector')
        ? t('inspector.passageHowVector')
        : t('inspector.passageHowLexical');
  const score = typeof meta['score'] === 'number' ? meta['score'].toLocaleString(i18n.language, { maximumSignificantDigits: 3 }) : '–';
  const rule =
    meta['rule'] === 'matches_message' ? t('inspector.passageRuleMatches') : meta['rule'] === 'found_by_search' ? t('inspector.passageRuleSearch') : null;
  return (
    <span className="inspector-passage" data-testid="inspector-passage">
      {' · '}
      {t('inspector.passage', { citation: meta['citation'], score, how })}
      {rule && <> · {rule}</>}
    </span>
  );
}

/** A version the engine compared (any JSON value): a string as it is, anything else as JSON. */
function versionText(version: unknown): string {
  if (version === undefined || version === null) return '';
  return typeof version === 'string' ? version : JSON.stringify(version);
}

function reasonText(t: TFunction, reason: DropReason): string {
  return reason in REASON ? t(REASON[reason]) : reason;
}

/** One explanation: the budget, then what was used, then what was left out and why. */
function ExplanationView({ explanation, context }: { explanation: Explanation; context: RunContext }) {
  const { t, i18n } = useTranslation();
  const format = (n: number) => n.toLocaleString(i18n.language);
  const blocks = new Map<string, ContextBlock>(context.blocks.map((b) => [b.block_id, b]));
  const evidences = new Map<string, Evidence>(context.evidences.map((e) => [e.evidence_id, e]));
  const cited = new Set(context.cited);
  const blockEvidences = (id: string) => blocks.get(id)?.refs?.map((r) => r.evidence_id) ?? [];
  const usedEvidenceIds = new Set(explanation.evidences.map((e) => e.evidence_id));
  const citedElsewhere = context.cited.filter((id) => !usedEvidenceIds.has(id));
  const citing = explanation.messages.filter((m) => (m.refs ?? []).length > 0);
  const tokens = (n: number | undefined) => (n === undefined ? t('inspector.notCounted') : t('inspector.tokens', { formatted: format(n) }));

  return (
    <div className="inspector-explanation">
      <p className="inspector-muted">
        {t('inspector.model', { model: explanation.model })} ·{' '}
        {explanation.byte_bounds
          ? t('inspector.countBytes', { encoding: explanation.encoding })
          : explanation.encoding_exact
            ? t('inspector.countExact', { encoding: explanation.encoding })
            : t('inspector.countEstimate', { encoding: explanation.encoding })}
      </p>
      <BudgetBar shares={budgetShares(explanation)} />

      <section aria-label={t('inspector.usedBlocks')} data-testid="used-blocks">
        <h3>{t('inspector.usedBlocks')}</h3>
        {explanation.blocks.length === 0 ? (
          <p className="inspector-muted">{t('inspector.none')}</p>
        ) : (
          <ul className="inspector-list">
            {explanation.blocks.map((b) => (
              <li key={b.block_id} data-testid="used-block">
                <code>{b.block_id}</code> <span className="badge">{b.block_type}</span> <span className="badge">{b.priority}</span> · {tokens(b.tokens)} ·{' '}
                {t(WHY[b.why] ?? 'inspector.whyPriority')}
                {blockEvidences(b.block_id).length > 0 && (
                  <ul>
                    {blockEvidences(b.block_id).map((id) => (
                      <li key={id}>
                        <code>{id}</code> <EvidenceSource evidence={evidences.get(id)} cited={cited.has(id)} />
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-label={t('inspector.usedEvidences')} data-testid="used-evidences">
        <h3>{t('inspector.usedEvidences')}</h3>
        {explanation.evidences.length === 0 && citedElsewhere.length === 0 ? (
          <p className="inspector-muted">{t('inspector.none')}</p>
        ) : (
          <ul className="inspector-list">
            {explanation.evidences.map((e) => (
              <li key={`${e.block_id}:${e.evidence_id}:${e.selector ?? ''}`} data-testid="used-evidence">
                <code>{e.evidence_id}</code> <EvidenceSource evidence={evidences.get(e.evidence_id)} cited={cited.has(e.evidence_id)} /> ·{' '}
                {t('inspector.inBlock', { block: e.block_id })}
                {e.tokens !== undefined && <> · {tokens(e.tokens)}</>}
              </li>
            ))}
            {citedElsewhere.map((id) => (
              <li key={`cited:${id}`} data-testid="used-evidence">
                <code>{id}</code> <EvidenceSource evidence={evidences.get(id)} cited />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-label={t('inspector.messages')}>
        <h3>{t('inspector.messages')}</h3>
        <p>
          {t('inspector.messagesSent', { count: explanation.messages.length, formatted: format(explanation.budget.history_used) })}
          {explanation.summary.status === 'used' && ` ${t('inspector.summaryUsed', { from: explanation.summary.from ?? 0, to: explanation.summary.to ?? 0 })}`}
        </p>
        {citing.length > 0 && (
          <ul className="inspector-list">
            {citing.map((m) => (
              <li key={m.index} data-testid="citing-message">
                {t('inspector.messageCites', { index: m.index + 1, role: m.role })}
                <ul>
                  {(m.refs ?? []).map((r) => (
                    <li key={`${r.evidence_id}:${r.selector ?? ''}`}>
                      <code>{r.evidence_id}</code> <EvidenceSource evidence={evidences.get(r.evidence_id)} cited={cited.has(r.evidence_id)} />
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-label={t('inspector.trimmed')} data-testid="trimmed">
        <h3>{t('inspector.trimmed')}</h3>
        {explanation.dropped_blocks.length === 0 && explanation.dropped_messages.length === 0 ? (
          <p className="inspector-muted">{t('inspector.nothingTrimmed')}</p>
        ) : (
          <ul className="inspector-list">
            {explanation.dropped_blocks.map((b) => (
              <li key={b.block_id} data-testid="trimmed-block">
                <code>{b.block_id}</code> <span className="badge">{b.block_type}</span> <span className="badge">{b.priority}</span> ·{' '}
                <strong>{reasonText(t, b.reason)}</strong>
                {b.expires_at && ` · ${t('inspector.expiredAt', { when: b.expires_at })}`}
                {b.duplicate_of && ` · ${t('inspector.duplicateOf', { block: b.duplicate_of })}`}
                {b.tokens !== undefined && ` · ${tokens(b.tokens)}`}
                {(b.errors ?? []).map((err) => (
                  <p key={err.evidence_id} className="inspector-muted">
                    {t('inspector.refFailed', { evidence: err.evidence_id, kind: String(err.error.kind).replace(/_/g, ' ') })}
                  </p>
                ))}
                {blockEvidences(b.block_id).length > 0 && (
                  <ul>
                    {blockEvidences(b.block_id).map((id) => (
                      <li key={id}>
                        <code>{id}</code> <EvidenceSource evidence={evidences.get(id)} cited={cited.has(id)} />
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
            {explanation.dropped_messages.map((m) => (
              <li key={`m${m.from}`} data-testid="trimmed-messages">
                {m.from === m.to ? t('inspector.droppedMessage', { index: m.from + 1 }) : t('inspector.droppedMessages', { from: m.from + 1, to: m.to + 1 })} ·{' '}
                <strong>{reasonText(t, m.reason)}</strong>
                {m.tokens !== undefined && ` · ${tokens(m.tokens)}`}
              </li>
            ))}
          </ul>
        )}
      </section>
      {(explanation.conflicts ?? []).length > 0 && (
        <section aria-label={t('inspector.conflicts')} data-testid="conflicts">
          <h3>{t('inspector.conflicts')}</h3>
          <ul className="inspector-list">
            {(explanation.conflicts ?? []).map((c) => (
              <li key={c.superseded}>
                {t('inspector.conflictKept', { kept: c.kept, superseded: c.superseded })} ·{' '}
                <strong>
                  {c.rule === 'older_version'
                    ? t('inspector.conflictOlderVersion', { field: c.version_field ?? '', kept: versionText(c.kept_version), superseded: versionText(c.superseded_version) })
                    : t('inspector.conflictSameSource', { selector: c.selector ?? '—' })}
                </strong>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

/** What a run's prompt was built from, in a modal dialog (Escape closes, focus kept inside). */
export function ContextInspector({ client, runId, onClose }: { client: TesseraClient; runId: string; onClose: () => void }) {
  const { t } = useTranslation();
  const titleId = useId();
  const ref = useRef<HTMLDivElement | null>(null);
  const [context, setContext] = useState<RunContext | null>(null);
  const [error, setError] = useState<string | null>(null);

  useModalFocus(ref);

  useEffect(() => {
    const controller = new AbortController();
    getRunContext(client, runId, controller.signal).then(
      (answer) => {
        if (!controller.signal.aborted) setContext(answer);
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) setError(describeError(failure));
      },
    );
    return () => controller.abort();
  }, [client, runId]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => modalKeyDown(event, ref.current, onClose);

  const explained = context?.turns.filter((turn) => turn.assembly) ?? [];
  return (
    <Overlay>
      <div className="dialog-backdrop">
        <div ref={ref} className="dialog inspector-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown} data-testid="context-inspector">
          <div className="inspector-header">
            <h2 id={titleId} className="dialog-title">
              {t('inspector.title')}
            </h2>
            <button type="button" className="button button-secondary" onClick={onClose}>
              {t('inspector.close')}
            </button>
          </div>
          {!context && !error && <p role="status">{t('inspector.loading')}</p>}
          {error && (
            <p className="notice notice-error" role="alert">
              {t('inspector.loadFailed', { error })}
            </p>
          )}
          {context && explained.length === 0 && <p>{t('inspector.noExplanation')}</p>}
          {context &&
            explained.map((turn) => (turn.assembly ? <ExplanationView key={turn.turn_id} explanation={turn.assembly} context={context} /> : null))}
          {context && context.turns.length > 1 && <p className="inspector-muted">{t('inspector.calls', { count: context.turns.length })}</p>}
        </div>
      </div>
    </Overlay>
  );
}

/** The "Context" button of an assistant turn; nothing while no client or run is known. */
export function ContextButton({ runId }: { runId: string | null }) {
  const { t } = useTranslation();
  const client = useContext(InspectorClient);
  const [open, setOpen] = useState(false);
  if (!client || !runId) return null;
  return (
    <>
      <button type="button" className="button button-secondary context-button" aria-haspopup="dialog" aria-label={t('inspector.open')} onClick={() => setOpen(true)} data-testid="context-button">
        {t('inspector.button')}
      </button>
      {open && <ContextInspector client={client} runId={runId} onClose={() => setOpen(false)} />}
    </>
  );
}
