import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { pretty } from '../components/ToolCardView';
import type { ToolCard } from '../reducer';
import { NODE_HEIGHT, NODE_WIDTH, edgePath, layout } from './layout';
import { hasEnded, isDependency, stepStates, type Plan, type StepState } from './model';

/** A symbol beside the words, so a state never rests on colour alone. */
const ICONS: Record<StepState, string> = {
  waiting: '⋯',
  queued: '○',
  running: '▶',
  done: '✓',
  failed: '✕',
  skipped: '↷',
  cancelled: '⊘',
};

const STATE_KEYS = {
  waiting: 'plan.stateWaiting',
  queued: 'plan.stateQueued',
  running: 'plan.stateRunning',
  done: 'plan.stateDone',
  failed: 'plan.stateFailed',
  skipped: 'plan.stateSkipped',
  cancelled: 'plan.stateCancelled',
} as const satisfies Record<StepState, string>;

function percent(card: ToolCard | undefined): string | null {
  const p = card?.progress;
  if (!p) return null;
  if (p.total !== undefined && p.total > 0) return `${Math.round((p.progress / p.total) * 100)}%`;
  return p.message ?? null;
}

/**
 * An instruction set as a graph: steps in columns by dependency, edges as curves, each step's
 * state live. Every step is a button (Enter shows its arguments and result below); a list of the
 * steps with their states and dependencies stands in for the drawing for screen readers.
 */
export function PlanGraph({ plan, tools, runEnded }: { plan: Plan; tools: Record<string, ToolCard>; runEnded: boolean }) {
  const { t } = useTranslation();
  const [selected, setSelected] = useState<string | null>(null);
  const base = useId();
  const detailsId = `${base}-details`;
  const arrowId = `${base}-arrow`;
  const placed = useMemo(() => layout(plan.nodes, plan.edges), [plan.nodes, plan.edges]);
  const states = stepStates(plan, tools, runEnded);
  const stateOf = (id: string): StepState => states.get(id) ?? 'queued';
  const shortId = (id: string) => (plan.parentId && id.startsWith(`${plan.parentId}/`) ? id.slice(plan.parentId.length + 1) : id);
  const dependencies = (id: string) => plan.edges.filter((e) => e.to === id && isDependency(e)).map((e) => shortId(e.from));
  const done = plan.nodes.filter((n) => hasEnded(stateOf(n.id))).length;
  const chosen = selected ? plan.nodes.find((n) => n.id === selected) : undefined;
  const chosenCard = chosen ? tools[chosen.id] : undefined;

  return (
    <figure className="plan-graph" data-testid="plan-graph" aria-labelledby={`${base}-caption`}>
      <figcaption id={`${base}-caption`} className="plan-graph-caption">
        {t('plan.label')}
        <span className="plan-graph-summary" data-testid="plan-summary">
          {t('plan.summary', { done, count: plan.nodes.length })}
        </span>
      </figcaption>
      <ol className="visually-hidden" aria-label={t('plan.listLabel')} data-testid="plan-steps">
        {plan.nodes.map((n) => {
          const deps = dependencies(n.id);
          return (
            <li key={n.id}>
              {t('plan.stepText', { id: shortId(n.id), tool: n.label, state: t(STATE_KEYS[stateOf(n.id)]) })}{' '}
              {deps.length > 0 ? t('plan.dependsOn', { ids: deps.join(', ') }) : t('plan.noDependencies')}
            </li>
          );
        })}
      </ol>
      <div className="plan-graph-scroll">
        <div className="plan-graph-canvas" style={{ width: placed.width, height: placed.height }}>
          <svg className="plan-graph-edges" width={placed.width} height={placed.height} aria-hidden="true" focusable="false">
            <defs>
              <marker id={arrowId} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M 0 0 L 10 5 L 0 10 z" />
              </marker>
            </defs>
            {plan.edges.map((e) => {
              const from = placed.nodes.get(e.from);
              const to = placed.nodes.get(e.to);
              if (!from || !to) return null;
              return (
                <path
                  key={`${e.from}->${e.to}`}
                  className="plan-graph-edge"
                  data-testid="plan-edge"
                  data-kind={e.kind}
                  data-from={e.from}
                  data-to={e.to}
                  data-dependency={isDependency(e)}
                  d={edgePath(from, to)}
                  markerEnd={`url(#${arrowId})`}
                />
              );
            })}
          </svg>
          {plan.nodes.map((n) => {
            const at = placed.nodes.get(n.id);
            if (!at) return null;
            const state = stateOf(n.id);
            const progress = state === 'running' ? percent(tools[n.id]) : null;
            return (
              <button
                key={n.id}
                type="button"
                className="plan-node"
                data-testid="plan-node"
                data-step={n.id}
                data-state={state}
                style={{ left: at.x, top: at.y, width: NODE_WIDTH, height: NODE_HEIGHT }}
                title={n.label}
                aria-expanded={selected === n.id}
                aria-controls={detailsId}
                onClick={() => setSelected((s) => (s === n.id ? null : n.id))}
              >
                <span className="plan-node-tool">{n.label}</span>
                <span className="plan-node-state">
                  <span className="plan-node-icon" aria-hidden="true">
                    {ICONS[state]}
                  </span>{' '}
                  {t(STATE_KEYS[state])}
                  {progress ? ` · ${progress}` : ''}
                </span>
                <span className="visually-hidden"> {t('plan.stepId', { id: shortId(n.id) })}</span>
              </button>
            );
          })}
        </div>
      </div>
      <div id={detailsId} className="plan-details" data-testid="plan-details" role="region" aria-label={t('plan.detailsLabel')} hidden={!chosen}>
        {chosen && (
          <>
            <h4 className="plan-details-heading">
              {t('plan.details', { id: shortId(chosen.id), tool: chosen.label })} · {t(STATE_KEYS[stateOf(chosen.id)])}
              {chosenCard?.durationMs !== undefined ? ` · ${t('tool.duration', { ms: chosenCard.durationMs })}` : ''}
            </h4>
            {chosenCard?.arguments !== undefined && (
              <>
                <h5 className="tool-card-heading">{t('tool.arguments')}</h5>
                <pre className="tool-card-json" data-testid="plan-arguments">
                  {pretty(chosenCard.arguments)}
                </pre>
              </>
            )}
            {chosenCard?.result !== undefined && (
              <>
                <h5 className="tool-card-heading">{t('tool.result')}</h5>
                <pre className="tool-card-json" data-testid="plan-result">
                  {pretty(chosenCard.result)}
                </pre>
              </>
            )}
            {chosenCard?.error !== undefined && chosenCard.error !== null && (
              <>
                <h5 className="tool-card-heading">{t('tool.error')}</h5>
                <pre className="tool-card-json">{pretty(chosenCard.error)}</pre>
              </>
            )}
            {chosenCard?.arguments === undefined && chosenCard?.result === undefined && <p>{t('plan.notRun')}</p>}
          </>
        )}
      </div>
    </figure>
  );
}
