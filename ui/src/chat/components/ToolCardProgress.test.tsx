import { cleanup, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, describe, expect, it } from 'vitest';
import { createI18n } from '../../i18n';
import type { ToolCard } from '../reducer';
import { ToolCardView } from './ToolCardView';

afterEach(cleanup);

const card = (phase: ToolCard['phase']): ToolCard => ({
  id: 'pick',
  name: 'frontend_pick_files',
  parentId: null,
  children: [],
  phase,
  argumentsDraft: '',
  arguments: {},
  dependsOn: [],
  progress: { progress: 0, total: 1, message: 'reading the picked files' },
  ...(phase === 'success' ? { result: { files: [] }, durationMs: 12 } : {}),
});

function show(c: ToolCard) {
  render(
    <I18nextProvider i18n={createI18n('en')}>
      <ToolCardView card={c} tools={{ [c.id]: c }} />
    </I18nextProvider>,
  );
  return screen.getByTestId('tool-card');
}

describe('a tool card’s progress', () => {
  it('shows while the call runs', () => {
    expect(show(card('running'))).toHaveTextContent('reading the picked files');
  });

  it('is gone once the call ended: a finished card does not say "0 of 1 · reading…"', () => {
    const shown = show(card('success'));
    expect(shown).not.toHaveTextContent('reading the picked files');
    expect(shown).not.toHaveTextContent(/0 of 1/);
  });
});
