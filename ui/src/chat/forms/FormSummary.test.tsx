import { render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { createI18n } from '../../i18n';
import { FormSummary } from './FormSummary';

const ARGS = {
  title: 'Trip details',
  schema: {
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City' },
      nights: { type: 'integer', title: 'Nights' },
      pets: { type: 'boolean', title: 'Travelling with pets' },
      room: { type: 'string', title: 'Room', oneOf: [{ const: 'dbl', title: 'Double room' }, { const: 'sgl', title: 'Single room' }] },
    },
  },
};

describe('a submitted form', () => {
  it('reads as its labels and values, not JSON', () => {
    render(
      <I18nextProvider i18n={createI18n('en')}>
        <FormSummary args={ARGS} result={{ action: 'accept', values: { city: 'Oslo', nights: 3, pets: false, room: 'dbl' } }} />
      </I18nextProvider>,
    );
    const summary = screen.getByTestId('form-summary');
    expect(summary).toHaveAccessibleName('Your answers: Trip details');
    expect(summary).toHaveTextContent('CityOslo');
    expect(summary).toHaveTextContent('Nights3');
    expect(summary).toHaveTextContent('Travelling with petsNo');
    expect(summary).toHaveTextContent('RoomDouble room');
    expect(summary).not.toHaveTextContent('{');
  });

  it('shows nothing for a declined form', () => {
    render(
      <I18nextProvider i18n={createI18n('zh-CN')}>
        <FormSummary args={ARGS} result={{ action: 'decline' }} />
      </I18nextProvider>,
    );
    expect(screen.queryByTestId('form-summary')).not.toBeInTheDocument();
  });
});
