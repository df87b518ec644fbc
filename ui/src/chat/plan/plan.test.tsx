import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { Event } from '../../generated/Event';
import { createI18n } from '../../i18n';
import { SseParser } from '../../transport/sse';
import planStream from '../fixtures/plan.sse?raw';
import { initialChatState, reduceAll, type ChatState } from '../reducer';
import { stepStates, type Plan } from './model';
import { PlanGraph } from './PlanGraph';

// plan.sse is the stored event log of a real `tessera serve` run with the scripted provider
// (ui/e2e/plan.e2e.test.mjs with PLAN_FIXTURE): the model calls invoke_planner, whose plan adds
// 1+1 and reads the clock side by side, then works out 6*7 after both.

function events(sse: string): Event[] {
  const out: Event[] = [];
  const parser = new SseParser((m) => out.push(JSON.parse(m.data) as Event));
  parser.push(sse);
  parser.end();
  return out;
}

const ALL = events(planStream);
const A = 'call_plan/sum';
const B = 'call_plan/clock';
const TOTAL = 'call_plan/total';

function planOf(state: ChatState): Plan {
  const plans = Object.values(state.messages).flatMap((m) => m.plans ?? []);
  expect(plans).toHaveLength(1);
  return plans[0] as Plan;
}

/** The state after the events up to and including the first one `match` accepts. */
function until(match: (e: Event) => boolean): ChatState {
  const at = ALL.findIndex(match);
  expect(at).toBeGreaterThanOrEqual(0);
  return reduceAll(initialChatState, ALL.slice(0, at + 1));
}

const toolEvent = (type: string, id: string) => (e: Event) =>
  e.domain === 'tool' && e.type === type && (e.payload as { tool_call_id?: string }).tool_call_id === id;

function statesAt(state: ChatState): Record<string, string> {
  return Object.fromEntries(stepStates(planOf(state), state.tools, false));
}

describe('a plan from a recorded run', () => {
  it('has three steps, the third depending on the first two, under the planner call', () => {
    const state = reduceAll(initialChatState, ALL);
    const plan = planOf(state);
    expect(plan.parentId).toBe('call_plan');
    expect(plan.nodes.map((n) => [n.id, n.label])).toEqual([
      [A, 'calculator'],
      [B, 'get_current_datetime'],
      [TOTAL, 'calculator'],
    ]);
    expect(plan.edges.map((e) => [e.from, e.to, e.kind])).toEqual([
      [A, TOTAL, 'after'],
      [B, TOTAL, 'after'],
    ]);
    // The model's own round (one invoke_planner call) is a tool card, not a plan.
    expect(state.tools['call_plan']?.name).toBe('invoke_planner');
    expect(statesAt(state)).toEqual({ [A]: 'done', [B]: 'done', [TOTAL]: 'done' });
  });

  it('moves each step through its states as the events arrive', () => {
    // The plan is drawn before anything runs.
    expect(statesAt(until((e) => e.domain === 'workflow' && e.type === 'graph' && JSON.stringify(e.payload).includes(TOTAL)))).toEqual({
      [A]: 'queued',
      [B]: 'queued',
      [TOTAL]: 'waiting',
    });
    expect(statesAt(until(toolEvent('tool_started', B)))).toEqual({ [A]: 'running', [B]: 'running', [TOTAL]: 'waiting' });
    const firstEnded = until((e) => toolEvent('tool_result', A)(e) || toolEvent('tool_result', B)(e));
    expect(Object.values(statesAt(firstEnded)).sort()).toEqual(['done', 'running', 'waiting']);
    expect(statesAt(until(toolEvent('tool_started', TOTAL)))).toEqual({ [A]: 'done', [B]: 'done', [TOTAL]: 'running' });
  });

  it('calls a step that never ended cancelled once the run is over', () => {
    const state = until(toolEvent('tool_started', TOTAL));
    expect(stepStates(planOf(state), state.tools, true).get(TOTAL)).toBe('cancelled');
  });
});

describe('PlanGraph', () => {
  function show(state: ChatState, language: 'en' | 'zh-CN' = 'en') {
    const i18n = createI18n(language);
    const user = userEvent.setup();
    render(
      <I18nextProvider i18n={i18n}>
        <PlanGraph plan={planOf(state)} tools={state.tools} runEnded={false} />
      </I18nextProvider>,
    );
    return user;
  }

  it('lists the steps with states and dependencies in words, and draws the two edges', () => {
    show(until(toolEvent('tool_started', B)));
    const figure = screen.getByRole('figure', { name: /Plan/ });
    const list = within(figure).getByRole('list', { name: 'Steps of the plan' });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Step sum, calculator: running. No dependencies.',
      'Step clock, get_current_datetime: running. No dependencies.',
      'Step total, calculator: waiting on dependencies. Runs after sum, clock.',
    ]);
    expect(figure.querySelectorAll('[data-testid="plan-edge"]')).toHaveLength(2);
    expect(within(figure).getByRole('button', { name: /calculator.*waiting on dependencies.*step total/ })).toBeTruthy();
  });

  it('shows a step’s arguments and result on Enter, and hides them on Enter again', async () => {
    const user = show(reduceAll(initialChatState, ALL));
    const step = screen.getByRole('button', { name: /step total/ });
    expect(step.textContent).toMatch(/✓\s*done/);
    step.focus();
    await user.keyboard('{Enter}');
    const details = screen.getByRole('region', { name: 'Step details' });
    expect(within(details).getByTestId('plan-arguments').textContent).toMatch(/"expression": "6\*7"/);
    expect(within(details).getByTestId('plan-result').textContent).toMatch(/42/);
    expect(step.getAttribute('aria-expanded')).toBe('true');
    await user.keyboard('{Enter}');
    expect(step.getAttribute('aria-expanded')).toBe('false');
  });

  it('speaks Chinese', () => {
    show(reduceAll(initialChatState, ALL), 'zh-CN');
    expect(screen.getByRole('figure', { name: /计划/ })).toBeTruthy();
    expect(screen.getByText('步骤 total，calculator：已完成。', { exact: false })).toBeTruthy();
  });
});
